package dev.baton.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.QueueInfo;
import dev.baton.admin.BatonAdmin;
import dev.baton.testing.Fixture;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * A dashboard built from the operator API alone, with no client: it shows and acts on the schema,
 * and records who paused a queue as its builder says.
 */
class DashboardOnTheOperatorApiTest {

  @Test
  void aDashboardOnBatonAdminShowsJobsAndRecordsWhoPausedAQueue() throws Exception {
    try (Fixture f = new Fixture()) {
      BatonAdmin admin = new BatonAdmin(f.dataSource(), f.schema());
      long scheduled = Seed.scheduled(f, "ops");
      try (DashboardServer plain =
              Dashboard.builder(admin).build().serve(new InetSocketAddress("127.0.0.1", 0));
          DashboardServer named =
              Dashboard.builder(admin)
                  .pausedBy("cli:ops@host")
                  .build()
                  .serve(new InetSocketAddress("127.0.0.1", 0))) {
        WebClient web = new WebClient(plain.uri());
        assertThat(web.get("/api/jobs/" + scheduled).body()).contains("\"state\":\"scheduled\"");
        assertThat(web.post("/api/jobs/" + scheduled + "/run").body()).contains("\"run_now\"");
        assertThat(f.job(scheduled).metadata().path("retried_by").asText()).isEqualTo("dashboard");

        assertThat(web.post("/api/queues/ops/pause").body()).contains("\"paused\"");
        assertThat(pausedBy(admin, "ops")).isEqualTo("dashboard");
        assertThat(web.post("/api/queues/ops/resume").body()).contains("\"resumed\"");

        assertThat(new WebClient(named.uri()).post("/api/queues/ops/pause").body())
            .contains("\"paused\"");
        assertThat(pausedBy(admin, "ops")).isEqualTo("cli:ops@host");
      }
    }
  }

  private static String pausedBy(BatonAdmin admin, String queue) {
    return admin.queues().stream()
        .filter(q -> q.name().equals(queue))
        .findFirst()
        .map(QueueInfo::pausedBy)
        .orElse(null);
  }
}
