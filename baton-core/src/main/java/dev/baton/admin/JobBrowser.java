package dev.baton.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.baton.Job;
import dev.baton.JobState;
import dev.baton.internal.db.BrowseStore;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.JobRow;
import dev.baton.internal.db.SchemaName;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Pages through the jobs of a schema for a person looking at them (the dashboard): filtered by
 * state, queue, kind, id or idempotency key, one page at a time by keyset, so that every page costs
 * what the first one does however many rows the table holds.
 *
 * <p>The order follows the state filtered on, each read through an index: no state, newest first
 * (by id, which grows with the enqueue time); {@code completed}, {@code cancelled}, {@code
 * discarded}, most recently finalized first; {@code scheduled}, {@code retryable}, next due first;
 * {@code available}, in the order workers claim them (queue, priority, due time); {@code running},
 * latest attempt first. A kind filter, and a queue filter outside the claim order, is checked on
 * the rows that order reads (no index leads with them), so a page of such a filter reads at most
 * {@link #SCAN_BUDGET} rows in its order: when they hold fewer matches than the page's size, the
 * page has what they held (perhaps none), {@link Page#scanLimited()} is true, and its cursor
 * continues after the last row read, which {@link Page#searchedUpTo()} describes. Following the
 * cursors still visits every matching job once, in order; each page costs at most the budget's
 * rows.
 *
 * <p>Rows change while one pages: a job that changes state moves out of (or into) a state filter
 * between pages, so it may be seen twice or not at all; no page ever fails for it. Thread-safe;
 * each call is one statement on its own connection.
 *
 * <pre>{@code
 * JobBrowser browser = new JobBrowser(dataSource, "baton");
 * JobBrowser.Filter discarded = JobBrowser.Filter.ANY.withState(JobState.DISCARDED);
 * JobBrowser.Page page = browser.page(discarded, null, 50);
 * while (page.next() != null) {
 *   page = browser.page(discarded, page.next(), 50);
 * }
 * }</pre>
 */
public final class JobBrowser {

  /** Jobs on a page when no size is given: 50. */
  public static final int DEFAULT_PAGE_SIZE = 50;

  /**
   * Most jobs on one page: 500. The statement of a page costs little at any size; the time of a
   * page grows with its jobs' args, errors and metadata, parsed and written out again, and the
   * bound keeps the largest page's answer as short as a person at the dashboard expects.
   */
  public static final int MAX_PAGE_SIZE = 500;

  /**
   * Most rows one page reads of its order's index when a filter's queue or kind is checked on the
   * rows read (see the class description): 20,000. A queue with few old jobs, or a kind matching
   * none, would otherwise read all of a large table for one page; the budget keeps every page's
   * statement within the time a person at the dashboard waits for a list, on a small machine under
   * load, while a filter matching one job in a few thousand still fills most pages.
   */
  public static final int SCAN_BUDGET = 20_000;

  /**
   * Which jobs to read: those matching every non-null field.
   *
   * @param state only jobs in this state
   * @param queue only jobs of this queue
   * @param kind only jobs of this kind
   * @param id only the job with this id
   * @param idempotencyKey only the job with this idempotency key
   * @param args only jobs whose args contain this JSON object ({@code @>})
   * @param metadata only jobs whose metadata contain this JSON object
   */
  public record Filter(
      JobState state,
      String queue,
      String kind,
      Long id,
      String idempotencyKey,
      JsonNode args,
      JsonNode metadata) {

    /** Every job. */
    public static final Filter ANY = new Filter(null, null, null, null, null);

    /**
     * Checks that {@code args} and {@code metadata} are JSON objects when given.
     *
     * @throws IllegalArgumentException if one is given and is not a JSON object
     */
    public Filter {
      for (JsonNode n : new JsonNode[] {args, metadata}) {
        if (n != null && !n.isObject()) {
          throw new IllegalArgumentException(
              "invalid job filter: args and metadata must be JSON objects to look for, got "
                  + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
      }
    }

    /** A filter without args or metadata to look for. */
    public Filter(JobState state, String queue, String kind, Long id, String idempotencyKey) {
      this(state, queue, kind, id, idempotencyKey, null, null);
    }

    /**
     * This filter with the jobs whose args contain {@code args} (JSON containment, {@code @>}:
     * every key and value of it, nested objects and array elements included), null for any. Checked
     * on the rows a page reads, within {@link JobBrowser#SCAN_BUDGET}, like a kind.
     */
    public Filter withArgs(JsonNode args) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with the jobs whose metadata contain {@code metadata}, null for any. */
    public Filter withMetadata(JsonNode metadata) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with {@code state} (null: any). */
    public Filter withState(JobState state) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with {@code queue} (null: any). */
    public Filter withQueue(String queue) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with {@code kind} (null: any). */
    public Filter withKind(String kind) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with {@code id} (null: any). */
    public Filter withId(Long id) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    /** This filter with {@code idempotencyKey} (null: any). */
    public Filter withIdempotencyKey(String idempotencyKey) {
      return new Filter(state, queue, kind, id, idempotencyKey, args, metadata);
    }

    private BrowseStore.Filter toStore() {
      return new BrowseStore.Filter(
          state == null ? null : state.dbName(),
          queue,
          kind,
          id,
          idempotencyKey,
          args == null ? null : args.toString(),
          metadata == null ? null : metadata.toString());
    }
  }

  /**
   * One page of jobs.
   *
   * @param jobs the jobs, in the filter's order
   * @param next the cursor of the next page (pass it to {@link #page}), or null when this is the
   *     last; valid only with the same filter's state
   * @param searchedUpTo where the page's walk stopped when it ran out of its scan budget before
   *     filling the page (then {@code next} continues after that row), or null
   */
  public record Page(List<Job> jobs, String next, SearchedUpTo searchedUpTo) {

    /** Copies {@code jobs}. */
    public Page {
      jobs = List.copyOf(jobs);
    }

    /** A page that read every row it needed: no scan budget ran out. */
    public Page(List<Job> jobs, String next) {
      this(jobs, next, null);
    }

    /**
     * Whether the page's walk ran out of its scan budget before finding a page of matches: then
     * {@link #jobs()} are all the matches among the rows read (perhaps none), and {@link #next()}
     * searches on after them.
     */
    public boolean scanLimited() {
      return searchedUpTo != null;
    }
  }

  /**
   * How far a {@link Page#scanLimited() scan-limited} page searched: the rows it read, and the last
   * of them in the filter's order (which need not match the filter).
   *
   * @param rowsRead rows of the order's index the page read
   * @param lastId the last row's id
   * @param lastAt its time in the filter's order: created (no state), finalized ({@code completed},
   *     {@code cancelled}, {@code discarded}) or due ({@code scheduled}, {@code retryable}, {@code
   *     available})
   */
  public record SearchedUpTo(int rowsRead, long lastId, Instant lastAt) {}

  private static final String CURSOR_VERSION = "1";

  private final DataSource dataSource;
  private final SchemaName schema;
  private final BrowseStore store;
  private final ObjectMapper mapper;
  private final int scanBudget;

  /**
   * A browser of the jobs in {@code schema}. Does no I/O until used.
   *
   * @throws dev.baton.InvalidConfigException if the schema name is not valid
   */
  public JobBrowser(DataSource dataSource, String schema) {
    this(dataSource, schema, SCAN_BUDGET);
  }

  // A smaller budget lets a test page through scan-limited pages of a small table.
  JobBrowser(DataSource dataSource, String schema, int scanBudget) {
    if (scanBudget < 1) {
      throw new IllegalArgumentException("invalid scan budget: must be >= 1, got " + scanBudget);
    }
    this.scanBudget = scanBudget;
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = SchemaName.of(schema);
    this.store = new BrowseStore(this.schema);
    this.mapper =
        new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  }

  /**
   * Up to {@code size} jobs matching {@code filter}, starting after {@code cursor} (null: the first
   * page).
   *
   * @param cursor a {@link Page#next()} of an earlier page of a filter with the same state, or null
   * @param size jobs on the page, 1..{@value #MAX_PAGE_SIZE}
   * @throws IllegalArgumentException if {@code size} is out of range or {@code cursor} is not one
   *     this class made for a filter with this state
   */
  public Page page(Filter filter, String cursor, int size) {
    Objects.requireNonNull(filter, "filter");
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "invalid page of jobs: size must be 1.." + MAX_PAGE_SIZE + ", got " + size);
    }
    BrowseStore.Filter f = filter.toStore();
    BrowseStore.After after = cursor == null ? null : decode(cursor, f.order());
    BrowseStore.Scan scan =
        Db.inTransaction(
            dataSource,
            "cannot read a page of jobs (schema=" + schema + ")",
            c -> store.page(c, f, after, size + 1, scanBudget));
    List<JobRow> rows = scan.matches();
    List<Job> jobs = new ArrayList<>(Math.min(size, rows.size()));
    for (int i = 0; i < rows.size() && i < size; i++) {
      jobs.add(rows.get(i).toJob(mapper));
    }
    if (rows.size() > size) {
      return new Page(jobs, encode(f.order(), jobs.get(size - 1)));
    }
    if (scan.lastScanned() == null) {
      return new Page(jobs, null);
    }
    // The budget ran out first: the rows between the last match and the last row read hold no
    // match, so the next page starts after the last row read, never reading a row twice.
    Job last = scan.lastScanned().toJob(mapper);
    return new Page(
        jobs,
        encode(f.order(), last),
        new SearchedUpTo(scanBudget, last.id(), at(f.order(), last)));
  }

  /**
   * How many jobs match {@code filter}, counting at most {@code cap} (a result of {@code cap} means
   * "at least"), so that a count over millions of rows stops early.
   *
   * @param cap 1..10,000,000
   */
  public long count(Filter filter, long cap) {
    Objects.requireNonNull(filter, "filter");
    if (cap < 1 || cap > 10_000_000) {
      throw new IllegalArgumentException("invalid count cap: must be 1..10000000, got " + cap);
    }
    BrowseStore.Filter f = filter.toStore();
    return Db.inTransaction(
        dataSource, "cannot count jobs (schema=" + schema + ")", c -> store.count(c, f, cap));
  }

  // A cursor is the sort key of the page's last job, in base64url so that it passes through a URL
  // unchanged: version, order, then the key's fields.
  private static String encode(BrowseStore.Order order, Job last) {
    Instant at = order == BrowseStore.Order.NEWEST ? Instant.EPOCH : at(order, last);
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, at == null ? Instant.EPOCH : at);
    String text =
        String.join(
            "|",
            CURSOR_VERSION,
            order.name(),
            Long.toString(last.id()),
            Long.toString(micros),
            Integer.toString(last.priority()),
            last.queue());
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  // The time of a job's sort key in this order (its creation time in id order).
  private static Instant at(BrowseStore.Order order, Job job) {
    return switch (order) {
      case FINALIZED -> job.finalizedAt();
      case DUE, CLAIM -> job.scheduledAt();
      case ATTEMPTED -> job.attemptedAt();
      case NEWEST -> job.createdAt();
    };
  }

  private static BrowseStore.After decode(String cursor, BrowseStore.Order order) {
    String[] parts;
    try {
      parts =
          new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\\|", 6);
    } catch (IllegalArgumentException e) {
      throw badCursor(cursor, "it is not base64url");
    }
    if (parts.length != 6 || !CURSOR_VERSION.equals(parts[0])) {
      throw badCursor(cursor, "it is not a cursor of this version");
    }
    if (!order.name().equals(parts[1])) {
      throw badCursor(cursor, "it was made for a filter with another state");
    }
    try {
      return new BrowseStore.After(
          Long.parseLong(parts[2]), Long.parseLong(parts[3]), parts[5], Integer.parseInt(parts[4]));
    } catch (NumberFormatException e) {
      throw badCursor(cursor, "its fields are not numbers");
    }
  }

  private static IllegalArgumentException badCursor(String cursor, String why) {
    String shown = cursor.length() > 40 ? cursor.substring(0, 40) + "..." : cursor;
    return new IllegalArgumentException(
        "invalid page cursor \"" + shown + "\": " + why + "; pass the next cursor of a page");
  }
}
