package dev.baton.spring.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.health.AdditionalHealthEndpointPath;
import org.springframework.boot.actuate.health.HealthEndpointGroup;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.actuate.health.HttpCodeStatusMapper;
import org.springframework.boot.actuate.health.StatusAggregator;

/**
 * Puts the {@code baton} health indicator into the {@code readiness} group, when the application
 * has one (Kubernetes probes, {@code management.endpoint.health.probes.enabled=true}, or a group of
 * that name of its own), so that a node whose workers are stopped or whose schema is not ready
 * stops receiving traffic; Spring Boot 3. Not added with {@code
 * management.health.baton.enabled=false}.
 */
final class BatonReadinessGroup implements HealthEndpointGroupsPostProcessor {
  static final String GROUP = "readiness";
  static final String MEMBER = "baton";

  @Override
  public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
    HealthEndpointGroup readiness = groups.get(GROUP);
    if (readiness == null || readiness.isMember(MEMBER)) {
      return groups;
    }
    Map<String, HealthEndpointGroup> named = new LinkedHashMap<>();
    for (String name : groups.getNames()) {
      named.put(name, name.equals(GROUP) ? new WithBaton(readiness) : groups.get(name));
    }
    return HealthEndpointGroups.of(groups.getPrimary(), named);
  }

  /** A group and the {@code baton} indicator. */
  private record WithBaton(HealthEndpointGroup group) implements HealthEndpointGroup {
    @Override
    public boolean isMember(String name) {
      return MEMBER.equals(name) || group.isMember(name);
    }

    @Override
    public boolean showComponents(SecurityContext securityContext) {
      return group.showComponents(securityContext);
    }

    @Override
    public boolean showDetails(SecurityContext securityContext) {
      return group.showDetails(securityContext);
    }

    @Override
    public StatusAggregator getStatusAggregator() {
      return group.getStatusAggregator();
    }

    @Override
    public HttpCodeStatusMapper getHttpCodeStatusMapper() {
      return group.getHttpCodeStatusMapper();
    }

    @Override
    public AdditionalHealthEndpointPath getAdditionalPath() {
      return group.getAdditionalPath();
    }
  }
}
