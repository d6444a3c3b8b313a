package dev.baton.spring.boot;

import dev.baton.Baton;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@code Baton} bean's workers once every singleton of the context exists and stops them
 * when the context closes: claiming stops, running handlers get {@code baton.stop-timeout} to
 * finish, then are interrupted and their jobs handed back. Its phase puts the start before the web
 * server's and the stop after it, so requests in flight during a graceful shutdown can still
 * enqueue. Not started when {@code baton.enabled=false}.
 */
public class BatonLifecycle implements SmartLifecycle {

  /** Phase: below the web server's ({@code SmartLifecycle.DEFAULT_PHASE - 2048}). */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Baton baton;
  private final boolean autoStartup;
  private volatile boolean running;

  /** A lifecycle for {@code baton}, started with the context when {@code autoStartup}. */
  public BatonLifecycle(Baton baton, boolean autoStartup) {
    this.baton = baton;
    this.autoStartup = autoStartup;
  }

  @Override
  public void start() {
    baton.start();
    running = true;
  }

  /** Stops synchronously, within the stop timeout plus the time to write pending finishes. */
  @Override
  public void stop() {
    try {
      baton.stop();
    } finally {
      running = false;
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
