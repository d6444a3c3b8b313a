package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.Fixture;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency: only {@code dev.baton.metrics} may use it, and a client
 * must run on a class path without it.
 */
class RunsWithoutMicrometerTest {

  record Ping(int n) implements JobArgs {}

  @Test
  void noCoreClassOutsideTheMetricsPackageReferencesMicrometer() throws IOException {
    Path classes =
        Path.of(Baton.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    List<String> referencing = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        // class files name other classes in internal form in their constant pool
        String text = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
        if (text.contains("io/micrometer")) {
          referencing.add(classes.relativize(p).toString().replace(File.separatorChar, '/'));
        }
      }
    }
    assertThat(referencing)
        .as("the scan finds the binder")
        .contains("dev/baton/metrics/BatonMetrics.class");
    assertThat(referencing).allMatch(name -> name.startsWith("dev/baton/metrics/"));
  }

  @Test
  void clientStartsAndRunsJobsOnAClassPathWithoutMicrometer() throws Exception {
    try (Fixture f = new Fixture();
        URLClassLoader loader =
            new URLClassLoader(
                classPathWithoutMicrometer(), ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(
              () -> Class.forName("dev.baton.metrics.BatonMetrics", true, loader).getMethods())
          .as("the binder cannot load there, so the check is real")
          .isInstanceOf(NoClassDefFoundError.class);

      Class<?> configClass = loader.loadClass("dev.baton.BatonConfig");
      Object cb = configClass.getMethod("builder").invoke(null);
      Class<?> cbClass = cb.getClass();
      cbClass.getMethod("schema", String.class).invoke(cb, f.schema());
      cbClass.getMethod("queue", String.class, int.class).invoke(cb, "default", 2);
      cbClass.getMethod("pollInterval", Duration.class).invoke(cb, Duration.ofMillis(200));
      Object config = cbClass.getMethod("build").invoke(cb);

      Class<?> batonClass = loader.loadClass("dev.baton.Baton");
      assertThat(batonClass).isNotSameAs(Baton.class);
      Class<?> handlerClass = loader.loadClass("dev.baton.JobHandler");
      Class<?> pingClass = loader.loadClass(Ping.class.getName());
      AtomicInteger handled = new AtomicInteger();
      Object handler =
          Proxy.newProxyInstance(
              loader,
              new Class<?>[] {handlerClass},
              (proxy, method, args) -> {
                if (method.getName().equals("work")) {
                  handled.incrementAndGet();
                  return null;
                }
                return method.getName().equals("toString")
                    ? "handler"
                    : method.getName().equals("hashCode") ? 0 : proxy == args[0];
              });
      // the driver too from the isolated loader, so that its classes match Baton's there
      Class<?> pgDataSource = loader.loadClass("org.postgresql.ds.PGSimpleDataSource");
      Object ds = pgDataSource.getConstructor().newInstance();
      pgDataSource.getMethod("setUrl", String.class).invoke(ds, f.db().jdbcUrl());
      Object bb = batonClass.getMethod("builder", DataSource.class).invoke(null, ds);
      Class<?> bbClass = bb.getClass();
      bbClass.getMethod("config", configClass).invoke(bb, config);
      bbClass.getMethod("handler", Class.class, handlerClass).invoke(bb, pingClass, handler);
      Object baton = bbClass.getMethod("build").invoke(bb);
      Method stop = batonClass.getMethod("stop");
      batonClass.getMethod("start").invoke(baton);
      try {
        var constructor = pingClass.getDeclaredConstructor(int.class);
        constructor.setAccessible(true);
        Object args = constructor.newInstance(1);
        Object result =
            batonClass
                .getMethod("enqueue", loader.loadClass("dev.baton.JobArgs"))
                .invoke(baton, args);
        Object job = result.getClass().getMethod("job").invoke(result);
        long id = (long) job.getClass().getMethod("id").invoke(job);
        await().atMost(Duration.ofSeconds(15)).until(() -> f.job(id).state() == JobState.COMPLETED);
        assertThat(handled).hasValue(1);
      } finally {
        stop.invoke(baton);
      }
    }
  }

  /** The test class path (from the surefire booter's manifest if need be), minus Micrometer. */
  private static URL[] classPathWithoutMicrometer() throws IOException {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      File file = new File(entry);
      if (file.getName().startsWith("surefirebooter") && file.getName().endsWith(".jar")) {
        try (JarFile jar = new JarFile(file)) {
          String cp = jar.getManifest().getMainAttributes().getValue("Class-Path");
          for (String u : cp.trim().split("\\s+")) {
            URL url = new URL(file.toURI().toURL(), u);
            if (!url.toString().contains("micrometer")) {
              urls.add(url);
            }
          }
        }
      } else if (!entry.contains("micrometer")) {
        urls.add(file.toURI().toURL());
      }
    }
    assertThat(urls).as("class path").isNotEmpty();
    return urls.toArray(new URL[0]);
  }
}
