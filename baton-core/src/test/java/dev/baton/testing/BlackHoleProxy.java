package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A TCP proxy on loopback in front of a PostgreSQL server, which a test can turn into a black hole:
 * it then stops forwarding in both directions without closing anything (the peers' TCP stacks keep
 * the connections up, reads simply get no answer), as a network partition or a frozen proxy does.
 * Connections accepted meanwhile are held the same way, and a peer's close is not passed on. {@link
 * #resume()} forwards again, bytes held meanwhile included.
 *
 * <p>Each connection has two pump threads; a pump holds at most one chunk it read while the proxy
 * is a black hole, the rest waits in the kernel's buffers.
 */
public final class BlackHoleProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition forwarding = lock.newCondition();
  private boolean blackHole; // guarded by lock
  private volatile boolean closed;

  private BlackHoleProxy(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
    Thread acceptor = new Thread(this::accept, "proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy to the server of {@code jdbcUrl} ({@code jdbc:postgresql://host:port/...}). */
  public static BlackHoleProxy to(String jdbcUrl) throws IOException {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    int port = uri.getPort() < 0 ? 5432 : uri.getPort();
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    return new BlackHoleProxy(s, new InetSocketAddress(uri.getHost(), port));
  }

  /** {@code jdbcUrl} with its host and port replaced by this proxy's. */
  public String jdbcUrl(String jdbcUrl) {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    String rest = jdbcUrl.substring(jdbcUrl.indexOf('/', "jdbc:postgresql://".length()));
    return "jdbc:" + uri.getScheme() + "://127.0.0.1:" + server.getLocalPort() + rest;
  }

  /** Stops forwarding, in both directions, on every connection; closes nothing. */
  public void blackHole() {
    lock.lock();
    try {
      blackHole = true;
    } finally {
      lock.unlock();
    }
  }

  /** Forwards again, whatever was held meanwhile first. */
  public void resume() {
    lock.lock();
    try {
      blackHole = false;
      forwarding.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    resume();
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(target, 10_000);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, "up");
        pump(upstream, client, "down");
      } catch (IOException e) {
        if (!closed) {
          System.err.println("proxy: cannot accept or connect: " + e);
        }
      }
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  awaitForwarding();
                  out.write(buf, 0, n);
                  out.flush();
                }
                // A black hole does not pass a close on either: the other peer keeps its session.
                awaitForwarding();
              } catch (IOException | InterruptedException e) {
                // one side closed: close the other below
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-" + direction + "-" + from.getPort());
    t.setDaemon(true);
    t.start();
  }

  private void awaitForwarding() throws InterruptedException {
    lock.lock();
    try {
      while (blackHole && !closed) {
        forwarding.await();
      }
    } finally {
      lock.unlock();
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
