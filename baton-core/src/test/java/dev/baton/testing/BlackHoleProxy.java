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
 * <p>It can also lose one reply ({@link #loseReplyTo}): the next client message that contains a
 * given text is forwarded, the server's answer is read and thrown away, and then the connection is
 * closed on both sides, as when a connection breaks after a commit reached the server.
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
  private final java.util.concurrent.atomic.AtomicReference<byte[]> loseReplyTo =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final java.util.concurrent.atomic.AtomicInteger repliesLost =
      new java.util.concurrent.atomic.AtomicInteger();

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

  /** The port this proxy listens on, on the loopback address. */
  public int port() {
    return server.getLocalPort();
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

  /**
   * Loses the server's answer to the next client message that contains {@code text} (sent as
   * statement text: connect with {@code prepareThreshold=0} so that statements are sent as text
   * every time): the message reaches the server, whose answer is read and dropped, and then the
   * connection is closed on both sides. Once.
   */
  public void loseReplyTo(String text) {
    loseReplyTo.set(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** How many answers {@link #loseReplyTo} has dropped. */
  public int repliesLost() {
    return repliesLost.get();
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
        Pair pair = new Pair(client, upstream);
        pump(client, upstream, "up", pair);
        pump(upstream, client, "down", pair);
      } catch (IOException e) {
        if (!closed) {
          System.err.println("proxy: cannot accept or connect: " + e);
        }
      }
    }
  }

  /** One proxied connection; {@code losing} once its next answer is to be dropped. */
  private static final class Pair {
    final Socket client;
    final Socket upstream;
    volatile boolean losing;

    Pair(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }
  }

  private void pump(Socket from, Socket to, String direction, Pair pair) {
    boolean up = from == pair.client;
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  awaitForwarding();
                  if (up) {
                    byte[] marker = loseReplyTo.get();
                    if (marker != null
                        && contains(buf, n, marker)
                        && loseReplyTo.compareAndSet(marker, null)) {
                      pair.losing = true; // before the server can answer
                    }
                  } else if (pair.losing) {
                    // The server's answer to what the client sent last: drop it, and once it is
                    // whole (it ends with ReadyForQuery, sent after the commit), break the pair.
                    if (endsWithReadyForQuery(buf, n)) {
                      repliesLost.incrementAndGet();
                      closeQuietly(pair.client);
                      closeQuietly(pair.upstream);
                      return;
                    }
                    continue;
                  }
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

  // A ReadyForQuery message: 'Z', length 5, and the transaction status byte.
  private static boolean endsWithReadyForQuery(byte[] buf, int n) {
    return n >= 6
        && buf[n - 6] == 'Z'
        && buf[n - 5] == 0
        && buf[n - 4] == 0
        && buf[n - 3] == 0
        && buf[n - 2] == 5;
  }

  private static boolean contains(byte[] buf, int n, byte[] marker) {
    outer:
    for (int i = 0; i + marker.length <= n; i++) {
      for (int k = 0; k < marker.length; k++) {
        if (buf[i + k] != marker[k]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
