package dev.hopbench.node;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-phase server time in µs, as the Go node keeps it: a histogram a
 * phase from 1 µs to 60 s at 3 significant digits.
 */
final class Phases {
    static final String[] NAMES = {"decode", "work", "downstream", "encode", "total"};
    private final Histogram[] hists = new Histogram[NAMES.length];

    Phases() {
        for (int i = 0; i < hists.length; i++) {
            hists[i] = new Histogram(1, 60_000_000, 3);
        }
    }

    /** record adds one request's phases, in ns, in NAMES' order. */
    synchronized void record(long... ns) {
        for (int i = 0; i < ns.length; i++) {
            hists[i].recordValue(Math.max(1, Math.min(60_000_000, ns[i] / 1000)));
        }
    }

    synchronized void reset() {
        for (Histogram h : hists) {
            h.reset();
        }
    }

    /** summaries are stats.Summary's fields, a phase each. */
    synchronized Map<String, Map<String, Object>> summaries() {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            Histogram h = hists[i];
            Map<String, Object> s = new LinkedHashMap<>();
            long n = h.getTotalCount();
            s.put("count", n);
            s.put("mean_us", n == 0 ? 0.0 : h.getMean());
            s.put("p50_us", n == 0 ? 0 : h.getValueAtPercentile(50));
            s.put("p90_us", n == 0 ? 0 : h.getValueAtPercentile(90));
            s.put("p99_us", n == 0 ? 0 : h.getValueAtPercentile(99));
            s.put("p999_us", n == 0 ? 0 : h.getValueAtPercentile(99.9));
            s.put("max_us", n == 0 ? 0 : h.getMaxValue());
            out.put(NAMES[i], s);
        }
        return out;
    }
}
