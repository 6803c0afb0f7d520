package dev.hopbench.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import dev.hopbench.schema.v1.Ack;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service, as internal/node serves it: admit, decode, operate (or
 * call the downstream node), encode, each phase timed; errors counted by
 * class. Transports (Rest, Grpc) hand it a Call and send back its bytes.
 */
final class Node {
    static final Node INSTANCE = new Node();

    /** JSON_PLAIN writes the admin endpoint's maps, nulls and zeros kept. */
    static final ObjectMapper JSON_PLAIN = new ObjectMapper();

    /** A call: get, post or echo of a model, its body in the call's encoding. */
    record Call(String op, String model, long count, Wire wire, byte[] body) {}

    private volatile Flags flags = new Flags();
    private volatile String addr = "";
    private volatile Semaphore inFlight = new Semaphore(1024);
    private volatile Seeds seeds = Seeds.NONE;
    private volatile Downstream downstream;
    private final AtomicLong requests = new AtomicLong();
    /** cache holds encoded get replies by model, count and encoding (--cache), as the Go node's. */
    private final Map<String, byte[]> cache = new ConcurrentHashMap<>();
    private final AtomicLong cacheHits = new AtomicLong();
    private final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
    private final Phases phases = new Phases();

    void configure(Flags f, String addr, Seeds seeds, Downstream downstream) {
        this.flags = f;
        this.addr = addr;
        this.inFlight = new Semaphore(f.maxInFlight);
        this.seeds = seeds;
        this.downstream = downstream;
    }

    long maxBytes() { return flags.maxBytes; }

    /** serve answers one call with its reply's bytes, or throws a HopError. */
    byte[] serve(Call c) {
        requests.incrementAndGet();
        if (!inFlight.tryAcquire()) {
            throw fail(HopError.unavailable("node: more than " + flags.maxInFlight + " requests in flight (--max-in-flight)"));
        }
        try {
            return timed(c);
        } catch (HopError e) {
            throw fail(e);
        } catch (RuntimeException e) {
            throw fail(HopError.internal(e.toString()));
        } finally {
            inFlight.release();
        }
    }

    private byte[] timed(Call c) {
        long t0 = System.nanoTime();
        String key = flags.cache && c.op().equals("get") ? c.model() + "/" + c.count() + "/" + c.wire().name() : null;
        byte[] hit = key == null ? null : cache.get(key);
        if (hit != null) {
            cacheHits.incrementAndGet();
            phases.record(0, 0, 0, 0, System.nanoTime() - t0);
            return hit;
        }
        byte[] out = uncached(c, t0);
        if (key != null) {
            cache.put(key, out);
        }
        return out;
    }

    private byte[] uncached(Call c, long t0) {
        Model m = Model.lookup(c.model());
        Object in = null;
        if (!c.op().equals("get")) {
            if (c.body().length > flags.maxBytes) {
                throw HopError.tooLarge("request body", c.body().length, flags.maxBytes);
            }
            in = c.wire().decode(m, c.body());
        }
        long t1 = System.nanoTime();
        long down = 0;
        Object reply;
        if (downstream != null) {
            byte[] body = in == null ? null : c.wire().encode(in);
            long d0 = System.nanoTime();
            byte[] got = downstream.call(new Call(c.op(), c.model(), c.count(), c.wire(), body));
            down = System.nanoTime() - d0;
            reply = c.op().equals("post") ? c.wire().decodeAck(got) : c.wire().decode(m, got);
        } else {
            reply = operate(c, m, in);
        }
        long t2 = System.nanoTime();
        byte[] out = c.wire().encode(reply);
        if (out.length > flags.maxBytes) {
            throw HopError.tooLarge("reply body", out.length, flags.maxBytes);
        }
        long t3 = System.nanoTime();
        phases.record(t1 - t0, t2 - t1 - down, down, t3 - t2, t3 - t0);
        return out;
    }

    private Object operate(Call c, Model m, Object in) {
        return switch (c.op()) {
            case "get" -> seeds.reply(m, c.count(), c.wire().proto());
            case "post" -> {
                int n = m.len(in);
                if (c.wire().proto()) {
                    yield Ack.newBuilder().setModel(m.name()).setCount(n).build();
                }
                Models.Ack a = new Models.Ack();
                a.model = m.name();
                a.count = n;
                yield a;
            }
            case "echo" -> in;
            default -> throw HopError.badRequest("unknown operation \"" + c.op() + "\"");
        };
    }

    private HopError fail(HopError e) {
        errors.computeIfAbsent(e.code, k -> new AtomicLong()).incrementAndGet();
        return e;
    }

    void reset() {
        requests.set(0);
        cacheHits.set(0);
        errors.clear();
        phases.reset();
    }

    /** stats is nodeapi.Stats. */
    Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("stack", flags.stack);
        s.put("addr", addr);
        s.put("downstream", flags.downstream.isEmpty() ? null : List.copyOf(flags.downstream));
        s.put("requests", requests.get());
        Map<String, Long> errs = new LinkedHashMap<>();
        errors.forEach((k, v) -> errs.put(k, v.get()));
        s.put("errors", errs);
        s.put("cache_hits", cacheHits.get());
        s.put("phases_us", phases.summaries());
        s.put("memory", memory());
        return s;
    }

    /** memory is nodeapi.Memory read from the JVM: heap used and committed. */
    private static Map<String, Object> memory() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        long heapUsed = Math.max(0, m.getHeapMemoryUsage().getUsed());
        long heapCommitted = Math.max(0, m.getHeapMemoryUsage().getCommitted());
        long nonHeap = Math.max(0, m.getNonHeapMemoryUsage().getCommitted());
        long gcs = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs += Math.max(0, gc.getCollectionCount());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("heap_alloc_bytes", heapUsed);
        out.put("heap_inuse_bytes", heapCommitted);
        out.put("sys_bytes", heapCommitted + nonHeap);
        out.put("total_alloc_bytes", 0); // not read on the JVM
        out.put("num_gc", gcs);
        out.put("goroutines", Thread.activeCount());
        return out;
    }
}
