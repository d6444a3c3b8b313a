package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecretsTest {

  @Test
  void passwordsAreMaskedWhereTheyStandInUrlsAndParameters() {
    assertThat(Secrets.mask("java.net.UnknownHostException: app:hunter2@db.example.com"))
        .isEqualTo("java.net.UnknownHostException: app:***@db.example.com");
    assertThat(Secrets.mask("url ...?user=u&password=hunter2&ssl=true, then"))
        .isEqualTo("url ...?user=u&password=***&ssl=true, then");
    assertThat(Secrets.mask("jdbc:postgresql://db/app?user=u&password=hunter2: refused"))
        .isEqualTo("jdbc:postgresql://db/app?user=u&password=***: refused");
    for (String text :
        List.of(
            "at jdbc:postgresql://app:hunter2@db/app and app:hunter2@db",
            "jdbc:postgresql:app:hunter2@db/app",
            "properties {user=u, Password = hunter2; x}",
            "password=\"hunter2 and more\" given",
            "postgres://app:hun@ter2@db/app",
            "jdbc:postgresql://app:hun/ter2@db.invalid/app?x=1",
            "got 'postgresql://app:hun@ter2@db/app'",
            "[app:hunter2@db]")) {
      assertThat(Secrets.mask(text)).as(text).doesNotContain("hunter2").doesNotContain("ter2");
    }
  }

  @Test
  void everyPasswordTheUrlHoldsIsMaskedWhateverSurroundsIt() {
    for (String url :
        List.of(
            "jdbc:postgresql://db.invalid/app?user=u&password=hun ter2",
            "jdbc:postgresql://app:hun ter2@db.invalid/app",
            "jdbc:postgresql://app:hun@ter2@db.invalid/app",
            "jdbc:postgresql://db.invalid/app?user=u&password=hun%20ter2")) {
      String password = url.contains("@ter2") ? "hun@ter2" : "hun ter2";
      String text = "cannot connect to " + url + ": login failed for '" + password + "'";
      assertThat(Secrets.mask(text, url)).as(url).doesNotContain("ter2");
    }
    String url = "jdbc:postgresql://db/app?user=u&password=hun%74er2";
    assertThat(Secrets.mask("login failed for 'hunter2' and 'hun%74er2'", url))
        .isEqualTo("login failed for '***' and '***'");
  }

  @Test
  void textWithoutPasswordsIsLeftAsItIs() {
    for (String text :
        List.of(
            "jdbc:postgresql://localhost:5432/app?user=u",
            "cannot enqueue job (kind=send_email): queue default is paused",
            "http://127.0.0.1:7070/jobs?state=failed",
            "a:b c@d")) {
      assertThat(Secrets.mask(text, "jdbc:postgresql://x/app?password=ab")).isEqualTo(text);
    }
    assertThat(Secrets.mask((String) null)).isNull();
  }

  @Test
  void aThrowableIsMaskedWithItsCausesAndKeepsItsStack() {
    SQLException e =
        new SQLException(
            "The connection attempt failed.",
            "08001",
            new UnknownHostException("app:hunter2@db.example.com"));
    Throwable masked = Secrets.mask(e);
    StringWriter trace = new StringWriter();
    masked.printStackTrace(new PrintWriter(trace));
    assertThat(trace.toString())
        .contains("java.sql.SQLException: The connection attempt failed.")
        .contains("java.net.UnknownHostException: app:***@db.example.com")
        .contains("SecretsTest.aThrowableIsMaskedWithItsCausesAndKeepsItsStack")
        .doesNotContain("hunter2");
  }
}
