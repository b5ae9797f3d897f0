package dev.vigil.replay;

import java.util.ArrayList;
import java.util.List;

import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.SurvivorStacks;

/**
 * Draws one close as SVG, readable as a picture (a PNG of it says what the hover titles say):
 * a lane per child with its state-word intervals coloured by state, and marks for the shutdown
 * broadcast (blue triangle), the child's ack (green dot), the diagnosis (orange diamond, with the
 * survivor class written beside it), the survivor's stacks capture (brown bar under the state bar, from
 * its start to its end; the tool's summary and the dump's first lines in its hover title), every escalation signal (red triangle,
 * named TERM / KILL under it), the reap (black bar) and an overwritten SHUTDOWN (red cross). Lanes of children that failed
 * the close are tinted red; each lane's label (child and pid, then outcome and class) sits in a
 * column sized to the longest label. A dashed line marks the close's end; a row above the lanes
 * shows the operations in flight at the fence and when each settled. Plain SVG 1.1 attributes
 * only, so any renderer (browsers, rsvg-convert) draws it the same.
 */
public final class TimelineSvg {
    /** Width of the plot (right of the labels). */
    private static final int PLOT = 820;
    private static final int RIGHT = 40;
    /** Between the label column and time zero: marks at +0 s (broadcast, ack) stay clear of the labels. */
    private static final int GAP = 14;
    private static final int LANE = 40;
    private static final int BAR = 14;
    /** Average advance of a 12 px sans-serif glyph, generous, so labels always fit their column. */
    private static final double CHAR_WIDTH = 7.4;
    private static final String TINT = "#fde0e0";
    private static final String END_COLOUR = "#37474f";
    private static final String SETTLE_COLOUR = "#00897b";
    private static final String STACKS_COLOUR = "#795548";
    /** Lines of a captured dump shown in the stacks mark's hover title (the journal and `show` have it whole). */
    private static final int STACK_TITLE_LINES = 40;
    private static final int MARKS_PER_ROW = 5;
    private static final String[] STATE_COLOURS = {
        "#cfd8dc", "#90caf9", "#42a5f5", "#7e57c2", "#ffb74d", "#ffe082", "#a5d6a7", "#e57373",
    };

    private final RebuiltClose close;
    private final long t0;
    private final long tEnd;
    private final int labelWidth;
    private final int width;
    private final List<String> verdictLines;
    private final int top;

    private TimelineSvg(RebuiltClose close) {
        this.close = close;
        this.t0 = close.started().timeNanos();
        long end = close.isComplete() ? close.completed().timeNanos() : t0;
        for (ChildHistory c : close.children()) {
            end = Math.max(end, latest(c));
        }
        for (InFlightSettled s : close.settled()) {
            end = Math.max(end, s.timeNanos());
        }
        // a little room right of the last mark, so the close's end line is not on the border
        this.tEnd = end > t0 ? end + (end - t0) / 40 : t0 + 1_000_000_000L;
        int longest = 12;
        for (ChildHistory c : close.children()) {
            longest = Math.max(longest, Math.max(labelTop(c).length(), labelBottom(c).length()));
        }
        this.labelWidth = (int) Math.ceil(longest * CHAR_WIDTH) + 24;
        this.width = labelWidth + GAP + PLOT + RIGHT;
        this.verdictLines = wrap("verdict: " + CloseVerdict.of(close), (int) ((width - 20) / CHAR_WIDTH), 4);
        this.top = 50 + verdictLines.size() * 16 + 30;
    }

    /** The SVG document for one close. */
    public static String render(RebuiltClose close) {
        return new TimelineSvg(close).svg();
    }

    /** An HTML page holding the SVG, the verdict and a legend. */
    public static String renderHtml(RebuiltClose close) {
        String title = "Vigil close " + close.closeId() + " of pool " + close.poolId();
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(esc(title)).append("</title>\n<style>body{font-family:sans-serif;margin:1.5em}"
                        + " td,th{padding:2px 8px;text-align:left} .bad{color:#b71c1c;font-weight:bold}</style>\n")
                .append("</head>\n<body>\n<h1>").append(esc(title)).append("</h1>\n<p>")
                .append(esc(CloseVerdict.of(close))).append("</p>\n")
                .append(new TimelineSvg(close).svg()).append("\n<table>\n<tr><th>child</th><th>pid</th><th>outcome</th>"
                        + "<th>exit</th><th>signal</th><th>diagnosis</th><th>evidence</th><th>stacks</th></tr>\n");
        for (ChildHistory c : close.children()) {
            ChildOutcome o = c.outcome();
            sb.append("<tr").append(o.failsTheClose() ? " class=\"bad\"" : "").append("><td>").append(esc(c.key().toString()))
                    .append("</td><td>").append(c.pid()).append("</td><td>").append(o.outcome()).append("</td><td>")
                    .append(o.exitCode()).append("</td><td>").append(o.signal()).append("</td><td>")
                    .append(o.diagnosis() == null ? "" : esc(o.diagnosis())).append("</td><td>")
                    .append(o.evidence() == null ? "" : esc(o.evidence())).append("</td><td>")
                    .append(c.stacks() == null ? "" : esc(c.stacks().summary())).append("</td></tr>\n");
        }
        return sb.append("</table>\n</body>\n</html>\n").toString();
    }

    private static String labelTop(ChildHistory c) {
        return c.key() + "  pid " + c.pid();
    }

    /** Outcome and class: {@code KILLED_BY_ESCALATION: NOT_DELIVERED}. */
    private static String labelBottom(ChildHistory c) {
        ChildOutcome o = c.outcome();
        return o.outcome() + (o.diagnosis() == null ? "" : ": " + o.diagnosis());
    }

    private String svg() {
        List<ChildHistory> children = close.children();
        int lanesBottom = top + LANE + Math.max(1, children.size()) * LANE;
        int height = lanesBottom + 88;
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(width)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\" font-family=\"sans-serif\" font-size=\"12\" data-label-width=\"")
                .append(labelWidth).append("\">\n");
        sb.append("<rect x=\"0\" y=\"0\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" fill=\"#ffffff\"/>\n");
        sb.append("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">")
                .append(esc("close " + close.closeId() + " pool " + close.poolId() + " (" + close.protocolMode() + "): "
                        + close.outcome().outcome() + (close.isComplete() ? "" : ", INCOMPLETE")))
                .append("</text>\n");
        int vy = 42;
        for (String line : verdictLines) {
            sb.append("<text class=\"verdict\" x=\"10\" y=\"").append(vy).append("\">").append(esc(line)).append("</text>\n");
            vy += 16;
        }
        axis(sb, lanesBottom);
        settling(sb, top);
        int y = top + LANE;
        for (ChildHistory c : children) {
            lane(sb, c, y);
            y += LANE;
        }
        closeEnd(sb, lanesBottom);
        legend(sb, lanesBottom + 30);
        return sb.append("</svg>\n").toString();
    }

    private void axis(StringBuilder sb, int bottom) {
        double span = (tEnd - t0) / 1e9;
        double step = niceStep(span / 8);
        sb.append("<g class=\"axis\" stroke=\"#dddddd\">\n");
        for (double s = 0; s <= span + 1e-9; s += step) {
            double x = x(t0 + (long) (s * 1e9));
            sb.append(String.format(ReplayText.NUMBERS, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, top - 8, x,
                    bottom));
            sb.append(String.format(ReplayText.NUMBERS, "<text x=\"%.1f\" y=\"%d\" stroke=\"none\" fill=\"#555555\" "
                    + "text-anchor=\"middle\">+%s s</text>%n", x, top - 12, trim(s)));
        }
        sb.append("<line x1=\"").append(labelWidth).append("\" y1=\"").append(top - 8).append("\" x2=\"").append(labelWidth)
                .append("\" y2=\"").append(bottom).append("\" stroke=\"#90a4ae\"/>\n");
        sb.append("</g>\n");
    }

    /** The row above the lanes: operations in flight at the fence, and when each settled. */
    private void settling(StringBuilder sb, int y) {
        int inFlight = close.fenced() == null ? 0 : close.fenced().inFlight();
        List<InFlightSettled> settled = close.settled();
        sb.append("<g class=\"settling\" data-in-flight=\"").append(inFlight).append("\">\n");
        int finished = 0;
        for (InFlightSettled s : settled) {
            finished += "FINISHED".equals(s.outcome()) ? 1 : 0;
        }
        String label = inFlight == 0 && settled.isEmpty() ? "in flight at fence: none"
                : "in flight at fence: " + inFlight + " (" + finished + " finished, " + (settled.size() - finished)
                        + " abandoned)";
        sb.append("<text x=\"8\" y=\"").append(y + 24).append("\" fill=\"").append(SETTLE_COLOUR).append("\">")
                .append(esc(label)).append("</text>\n");
        if (close.fenced() != null && !settled.isEmpty()) {
            long last = settled.get(settled.size() - 1).timeNanos();
            double x1 = x(close.fenced().timeNanos());
            sb.append(String.format(ReplayText.NUMBERS, "<rect class=\"settling-span\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                    + "height=\"6\" fill=\"%s\" opacity=\"0.5\"><title>fence to the last settled operation</title></rect>%n",
                    x1, y + 17, Math.max(2, x(last) - x1), SETTLE_COLOUR));
            for (InFlightSettled s : settled) {
                double x = x(s.timeNanos());
                boolean abandoned = !"FINISHED".equals(s.outcome());
                sb.append(String.format(ReplayText.NUMBERS, "<rect class=\"settled\" x=\"%.1f\" y=\"%d\" width=\"3\" height=\"16\" "
                        + "fill=\"%s\"><title>%s %s/%d %s</title></rect>%n", x - 1.5, y + 12,
                        abandoned ? "#c62828" : SETTLE_COLOUR, esc(s.operation()), esc(s.group()), s.index(), s.outcome()));
            }
            InFlightSettled lastOne = settled.get(settled.size() - 1);
            sb.append(String.format(ReplayText.NUMBERS, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"%s\">settled %s</text>%n",
                    x(last) + 5, y + 12, SETTLE_COLOUR, esc(CloseVerdict.at(lastOne.timeNanos(), t0))));
        }
        sb.append("</g>\n");
    }

    private void lane(StringBuilder sb, ChildHistory c, int y) {
        ChildOutcome o = c.outcome();
        boolean bad = o.failsTheClose();
        sb.append("<g class=\"lane\" data-child=\"").append(esc(c.key().toString())).append("\" data-y=\"").append(y)
                .append("\" data-outcome=\"").append(o.outcome()).append("\">\n");
        if (bad) {
            sb.append("<rect class=\"tint\" x=\"0\" y=\"").append(y).append("\" width=\"").append(width)
                    .append("\" height=\"").append(LANE).append("\" fill=\"").append(TINT).append("\"/>\n");
        }
        String colour = bad ? " fill=\"#b71c1c\"" : "";
        sb.append("<text class=\"label\" x=\"8\" y=\"").append(y + 16).append("\"").append(colour)
                .append(bad ? " font-weight=\"bold\"" : "").append(">").append(esc(labelTop(c))).append("</text>\n");
        sb.append("<text class=\"label\" x=\"8\" y=\"").append(y + 32).append("\" font-size=\"11\"").append(colour)
                .append(">").append(esc(labelBottom(c))).append("</text>\n");
        long end = c.reaped() != null ? c.reaped().timeNanos() : tEnd;
        int barY = y + (LANE - BAR) / 2;
        // By time: the state at x is the to-state of the highest seq stamped at or before x (two writers' stamps,
        // taken right after their CAS, can invert; a lower seq stamped later never takes the word back).
        MailboxTransition start = c.stateAtStart();
        long segStart = t0;
        int state = start == null ? -1 : start.toState();
        long seq = start == null ? Long.MIN_VALUE : start.seq();
        for (MailboxTransition t : c.transitions()) {
            if (t.seq() < seq) {
                continue;
            }
            bar(sb, segStart, Math.min(t.timeNanos(), end), state, barY);
            segStart = Math.max(segStart, t.timeNanos());
            state = t.toState();
            seq = t.seq();
        }
        bar(sb, segStart, end, state, barY);
        if (c.published() != null) {
            double x = x(c.published().timeNanos());
            sb.append(String.format(ReplayText.NUMBERS, "<path class=\"broadcast\" d=\"M %.1f %d L %.1f %d L %.1f %d Z\" "
                    + "fill=\"#1565c0\"><title>shutdown published</title></path>%n", x - 5, y + 1, x + 5, y + 1, x, y + 10));
        }
        if (c.acked() != null) {
            sb.append(String.format(ReplayText.NUMBERS, "<circle class=\"ack\" cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"#2e7d32\">"
                    + "<title>acked</title></circle>%n", x(CloseVerdict.ackTime(c.acked())), y + LANE / 2));
        }
        if (c.diagnosed() != null) {
            double x = x(c.diagnosed().timeNanos());
            int cy = y + LANE / 2;
            sb.append(String.format(ReplayText.NUMBERS, "<path class=\"diagnosis\" d=\"M %.1f %d L %.1f %d L %.1f %d L %.1f %d Z\" "
                    + "fill=\"#ef6c00\"><title>%s</title></path>%n", x, cy - 7, x + 7, cy, x, cy + 7, x - 7, cy,
                    esc(c.diagnosed().diagnosis())));
            // the class is written on the picture, not only in the hover title; right-aligned when it would run off
            String text = c.diagnosed().diagnosis();
            double textWidth = text.length() * CHAR_WIDTH;
            boolean leftOf = x + 10 + textWidth > width - 4;
            sb.append(String.format(ReplayText.NUMBERS, "<text class=\"class-label\" x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                    + "font-weight=\"bold\" fill=\"#bf360c\" text-anchor=\"%s\">%s</text>%n", leftOf ? x - 10 : x + 10,
                    y + 11, leftOf ? "end" : "start", esc(text)));
        }
        if (c.stacks() != null) {
            SurvivorStacks st = c.stacks();
            // a bar under the state bar from the capture's start to its end (journaled at its end, with its duration)
            double x = x(st.timeNanos());
            double from = Math.min(x - 4, x(st.timeNanos() - st.durationNanos()));
            sb.append(String.format(ReplayText.NUMBERS, "<rect class=\"stacks\" data-x=\"%.1f\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                    + "height=\"4\" fill=\"%s\"><title>%s</title></rect>%n", x, from, y + LANE - 13, x - from, STACKS_COLOUR,
                    esc(stacksTitle(st))));
        }
        for (EscalationSent e : c.escalations()) {
            double x = x(e.timeNanos());
            String name = SignalNames.name(e.signal());
            sb.append(String.format(ReplayText.NUMBERS, "<path class=\"escalation\" data-signal=\"%d\" data-x=\"%.1f\" d=\"M %.1f %d L %.1f %d "
                    + "L %.1f %d Z\" fill=\"#c62828\"><title>%s to %s</title></path>%n", e.signal(), x, x - 5, y + LANE - 1,
                    x + 5, y + LANE - 1, x, y + LANE - 10, name, esc(e.target())));
            sb.append(String.format(ReplayText.NUMBERS, "<text class=\"escalation-label\" x=\"%.1f\" y=\"%d\" font-size=\"9\" "
                    + "fill=\"#c62828\" text-anchor=\"end\">%s</text>%n", x - 6, y + LANE - 2,
                    esc(name.startsWith("SIG") ? name.substring(3) : name)));
        }
        if (c.reaped() != null) {
            sb.append(String.format(ReplayText.NUMBERS, "<rect class=\"reap\" x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" "
                    + "fill=\"#000000\"><title>reaped, %s</title></rect>%n", x(c.reaped().timeNanos()) - 1.5, y + 4, LANE - 8,
                    esc(CloseVerdict.ending(c))));
        }
        if (c.shutdownOverwrite() != null) {
            double x = x(c.shutdownOverwrite().timeNanos());
            sb.append(String.format(ReplayText.NUMBERS, "<path class=\"overwrite\" d=\"M %.1f %d L %.1f %d M %.1f %d L %.1f %d\" "
                    + "stroke=\"#b71c1c\" stroke-width=\"3\"><title>SHUTDOWN overwritten</title></path>%n",
                    x - 6, y + 6, x + 6, y + LANE - 6, x + 6, y + 6, x - 6, y + LANE - 6));
        }
        sb.append("</g>\n");
    }

    /** The stacks mark's hover title: when, the one-line summary, then the dump's first lines. */
    private String stacksTitle(SurvivorStacks st) {
        StringBuilder t = new StringBuilder("stacks captured ").append(CloseVerdict.at(st.timeNanos(), t0)).append(": ")
                .append(st.summary());
        List<String> lines = st.stacks() == null ? List.of() : st.stacks().lines().toList();
        lines.stream().limit(STACK_TITLE_LINES).forEach(l -> t.append('\n').append(l));
        if (lines.size() > STACK_TITLE_LINES) {
            t.append("\n... ").append(lines.size() - STACK_TITLE_LINES).append(" more line(s): vigil-replay show");
        }
        return t.toString();
    }

    /** The close's end (its CloseCompleted), a dashed line over every lane. */
    private void closeEnd(StringBuilder sb, int bottom) {
        if (!close.isComplete()) {
            return;
        }
        double x = x(close.completed().timeNanos());
        sb.append(String.format(ReplayText.NUMBERS, "<g class=\"close-end\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                + "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/><text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                + "fill=\"%s\" text-anchor=\"end\">close completed %s</text></g>%n", x, top - 4, x, bottom, END_COLOUR,
                x - 4, bottom + 14, END_COLOUR, esc(CloseVerdict.at(close.completed().timeNanos(), t0))));
    }

    private void bar(StringBuilder sb, long from, long to, int state, int y) {
        if (to <= from && !(to == from && from == t0)) {
            return;
        }
        double x1 = x(from);
        double w = Math.max(1, x(to) - x1);
        String colour = state >= 0 && state < STATE_COLOURS.length ? STATE_COLOURS[state] : "#eeeeee";
        sb.append(String.format(ReplayText.NUMBERS, "<rect class=\"state\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                + "fill=\"%s\" stroke=\"#78909c\" stroke-width=\"0.5\"><title>%s</title></rect>%n", x1, y, w, BAR, colour,
                state < 0 ? "unknown" : MailboxStates.name(state)));
    }

    private void legend(StringBuilder sb, int y) {
        sb.append("<g class=\"legend\" font-size=\"11\">\n");
        int x = 10;
        int step = (width - 20) / STATE_COLOURS.length;
        for (int s = 0; s < STATE_COLOURS.length; s++) {
            sb.append("<rect x=\"").append(x).append("\" y=\"").append(y - 10).append("\" width=\"12\" height=\"12\" fill=\"")
                    .append(STATE_COLOURS[s]).append("\"/><text x=\"").append(x + 16).append("\" y=\"").append(y)
                    .append("\">").append(MailboxStates.name(s)).append("</text>\n");
            x += step;
        }
        y += 22;
        String[][] marks = {{"#1565c0", "broadcast"}, {"#2e7d32", "ack"}, {"#ef6c00", "diagnosis"},
            {"#c62828", "escalation"}, {"#000000", "reap"}, {TINT, "failed the close"},
            {END_COLOUR, "close end"}, {SETTLE_COLOUR, "in flight settled"}, {STACKS_COLOUR, "stacks captured"}};
        // marks in rows of MARKS_PER_ROW: wide columns, so no label runs into the next even on a narrow picture
        step = (width - 20) / MARKS_PER_ROW;
        for (int i = 0; i < marks.length; i++) {
            x = 10 + (i % MARKS_PER_ROW) * step;
            int my = y + (i / MARKS_PER_ROW) * 18;
            sb.append("<rect x=\"").append(x).append("\" y=\"").append(my - 10).append("\" width=\"12\" height=\"12\" fill=\"")
                    .append(marks[i][0]).append("\"/><text x=\"").append(x + 16).append("\" y=\"").append(my).append("\">")
                    .append(marks[i][1]).append("</text>\n");
        }
        sb.append("</g>\n");
    }

    private double x(long t) {
        double f = (double) (Math.min(Math.max(t, t0), tEnd) - t0) / (tEnd - t0);
        return labelWidth + GAP + f * PLOT;
    }

    private static long latest(ChildHistory c) {
        long t = Long.MIN_VALUE;
        for (var e : new dev.vigil.journal.JournalEvent[] {c.published(), c.acked(), c.reaped(), c.diagnosed(),
            c.released(), c.stacks()}) {
            if (e != null) {
                t = Math.max(t, e.timeNanos());
            }
        }
        for (EscalationSent e : c.escalations()) {
            t = Math.max(t, e.timeNanos());
        }
        if (c.acked() != null) {
            t = Math.max(t, CloseVerdict.ackTime(c.acked()));
        }
        for (MailboxTransition tr : c.transitions()) {
            t = Math.max(t, tr.timeNanos());
        }
        return t;
    }

    private static double niceStep(double raw) {
        if (raw <= 0) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (raw <= m * mag) {
                return m * mag;
            }
        }
        return 10 * mag;
    }

    private static String trim(double s) {
        String v = String.format(ReplayText.NUMBERS, "%.3f", s);
        v = v.replaceAll("0+$", "");
        return v.endsWith(".") ? v.substring(0, v.length() - 1) : v;
    }

    /** Splits {@code s} at spaces into lines of at most {@code max} characters; at most {@code lines} lines. */
    static List<String> wrap(String s, int max, int lines) {
        List<String> out = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : s.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > max) {
                out.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            out.add(line.toString());
        }
        if (out.size() > lines) {
            List<String> cut = new ArrayList<>(out.subList(0, lines));
            String last = cut.get(lines - 1);
            cut.set(lines - 1, (last.length() > max - 4 ? last.substring(0, max - 4) : last) + " ...");
            return cut;
        }
        return out;
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(ch < 0x20 && ch != '\t' && ch != '\n' ? ' ' : ch);
            }
        }
        return sb.toString();
    }
}
