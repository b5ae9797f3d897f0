package dev.vigil.journal.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * One row of the summary table at the top of docs/BENCHMARKS.md, as a benchmark prints it. bin/vigil-bench
 * picks the lines that start with {@link #PREFIX} out of a benchmark's output and regenerates the table from
 * them, adding the load and time of the run; rows of benchmarks that were not rerun keep theirs. So no figure
 * in the table is copied by hand, and whether a target is met is decided by the benchmark from its own figures.
 *
 * @param measure  what was measured and under which work, e.g. "close minus slowest reap, median (1-256 children)"
 * @param vigil    Vigil's figure
 * @param baseline the baseline's figure from the same run, naming the baseline
 * @param ratio    Vigil over baseline (or however the target states it), e.g. "1.15x"; empty when there is none
 * @param target   the target the issue set
 * @param verdict  whether this run's figure meets the target, or that there is none (a figure reported for comparison)
 */
public record BenchSummary(String measure, String vigil, String baseline, String ratio, String target, Verdict verdict) {
    /** Whether a row's figure meets its target. */
    public enum Verdict { MET, MISSED, NO_TARGET }

    /** A row with a target: met or missed as this run's figure says. */
    public BenchSummary(String measure, String vigil, String baseline, String ratio, String target, boolean met) {
        this(measure, vigil, baseline, ratio, target, met ? Verdict.MET : Verdict.MISSED);
    }

    /** A row reported for comparison, without a target. */
    public static BenchSummary reported(String measure, String vigil, String baseline, String ratio) {
        return new BenchSummary(measure, vigil, baseline, ratio, "none set", Verdict.NO_TARGET);
    }

    /** The start of a summary line in a benchmark's output. */
    public static final String PREFIX = "summary| ";

    /** A ratio as the table writes it: two decimals and an "x". */
    public static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2fx", r);
    }

    /** Prints this row as one line for bin/vigil-bench. */
    public void print(PrintStream out) {
        out.println(line());
    }

    /** This row as bin/vigil-bench reads it, without the line end; a '|' inside a cell is escaped for Markdown. */
    public String line() {
        return PREFIX + String.join(" | ", cell(measure), cell(vigil), cell(baseline), cell(ratio), cell(target),
                switch (verdict) {
                    case MET -> "yes";
                    case MISSED -> "**no**";
                    case NO_TARGET -> "n/a";
                });
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace('\n', ' ');
    }
}
