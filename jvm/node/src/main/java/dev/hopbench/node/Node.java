package dev.hopbench.node;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service: decode, operate, encode, each phase timed, as the Go node
 * (internal/node) does. JSON is Jackson on plain classes (Models), with
 * the Go node's field names (the proto names) and empty fields left out.
 */
final class Node {
    static final Node INSTANCE = new Node();

    static final ObjectMapper JSON = JsonMapper.builder()
            .serializationInclusion(JsonInclude.Include.NON_DEFAULT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
            .build();

    /** JSON_PLAIN writes the admin endpoint's maps, nulls and zeros kept. */
    static final ObjectMapper JSON_PLAIN = new ObjectMapper();


    private volatile String stack = "rest", addr = "";
    private volatile long maxBytes = 64L << 20;
    private final AtomicLong requests = new AtomicLong();
    private final Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
    private final Phases phases = new Phases();

    void describe(String stack, String addr, long maxBytes) {
        this.stack = stack;
        this.addr = addr;
        this.maxBytes = maxBytes;
    }

    /** echo decodes a model's JSON body and encodes it back. */
    byte[] echo(String model, String contentType, byte[] body) {
        long t0 = System.nanoTime();
        try {
            Class<?> type = Models.BY_NAME.get(model);
            if (type == null) {
                throw HopError.notFound("unknown model " + model);
            }
            if (contentType != null && !contentType.startsWith("application/json")) {
                throw HopError.badRequest("unsupported media type " + contentType + ": the JVM node speaks application/json so far");
            }
            if (body.length > maxBytes) {
                throw HopError.tooLarge(body.length, maxBytes);
            }
            Object msg = decode(type, body);
            long t1 = System.nanoTime();
            long t2 = System.nanoTime(); // echo's work is handing the message back
            byte[] out = encode(msg);
            long t3 = System.nanoTime();
            phases.record(t1 - t0, t2 - t1, 0, t3 - t2, t3 - t0);
            return out;
        } catch (HopError e) {
            errors.computeIfAbsent(e.code, k -> new AtomicLong()).incrementAndGet();
            throw e;
        } finally {
            requests.incrementAndGet();
        }
    }

    private static Object decode(Class<?> type, byte[] body) {
        try {
            return JSON.readValue(body, type);
        } catch (IOException e) {
            throw HopError.badRequest("decoding json: " + e.getMessage());
        }
    }

    private static byte[] encode(Object msg) {
        try {
            return JSON.writeValueAsBytes(msg);
        } catch (IOException e) {
            throw new HopError("internal", 500, "encoding json: " + e.getMessage());
        }
    }

    void reset() {
        requests.set(0);
        errors.clear();
        phases.reset();
    }

    /** stats is nodeapi.Stats. */
    Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("stack", stack);
        s.put("addr", addr);
        s.put("downstream", null);
        s.put("requests", requests.get());
        Map<String, Long> errs = new LinkedHashMap<>();
        errors.forEach((k, v) -> errs.put(k, v.get()));
        s.put("errors", errs);
        s.put("cache_hits", 0);
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
