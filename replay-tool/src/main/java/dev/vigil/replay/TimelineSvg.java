package dev.vigil.replay;

import java.util.List;
import java.util.Locale;

import dev.vigil.journal.MailboxTransition;

/**
 * Draws one close as SVG: a lane per child with its state-word intervals coloured by state, and
 * marks for the shutdown broadcast (blue), the child's ack (green), diagnosis (orange), escalation
 * (red) and the reap (black). Survivor lanes are tinted red and labelled with their diagnosis.
 * Plain SVG 1.1 attributes only, so any renderer (browsers, rsvg-convert) draws it the same.
 */
public final class TimelineSvg {
    private static final int WIDTH = 1100;
    private static final int LABEL_WIDTH = 300;
    private static final int RIGHT = 30;
    private static final int TOP = 70;
    private static final int LANE = 30;
    private static final int BAR = 14;
    private static final String[] STATE_COLOURS = {
        "#cfd8dc", "#90caf9", "#42a5f5", "#7e57c2", "#ffb74d", "#ffe082", "#a5d6a7", "#e57373",
    };

    private final RebuiltClose close;
    private final long t0;
    private final long tEnd;

    private TimelineSvg(RebuiltClose close) {
        this.close = close;
        this.t0 = close.started().timeNanos();
        long end = close.isComplete() ? close.completed().timeNanos() : t0;
        for (ChildHistory c : close.children()) {
            end = Math.max(end, latest(c));
        }
        this.tEnd = end > t0 ? end : t0 + 1_000_000_000L;
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
                        + "<th>exit</th><th>signal</th><th>diagnosis</th><th>evidence</th></tr>\n");
        for (ChildHistory c : close.children()) {
            ChildOutcome o = c.outcome();
            sb.append("<tr").append(o.failsTheClose() ? " class=\"bad\"" : "").append("><td>").append(esc(c.key().toString()))
                    .append("</td><td>").append(c.pid()).append("</td><td>").append(o.outcome()).append("</td><td>")
                    .append(o.exitCode()).append("</td><td>").append(o.signal()).append("</td><td>")
                    .append(o.diagnosis() == null ? "" : esc(o.diagnosis())).append("</td><td>")
                    .append(o.evidence() == null ? "" : esc(o.evidence())).append("</td></tr>\n");
        }
        return sb.append("</table>\n</body>\n</html>\n").toString();
    }

    private String svg() {
        List<ChildHistory> children = close.children();
        int height = TOP + Math.max(1, children.size()) * LANE + 70;
        StringBuilder sb = new StringBuilder(4096);
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(WIDTH)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(height).append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        sb.append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" fill=\"#ffffff\"/>\n");
        sb.append("<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">")
                .append(esc("close " + close.closeId() + " pool " + close.poolId() + " (" + close.protocolMode() + "): "
                        + close.outcome().outcome() + (close.isComplete() ? "" : ", INCOMPLETE")))
                .append("</text>\n<text x=\"10\" y=\"38\">").append(esc(clip(CloseVerdict.of(close), 170)))
                .append("</text>\n");
        axis(sb, height);
        int y = TOP;
        for (ChildHistory c : children) {
            lane(sb, c, y);
            y += LANE;
        }
        legend(sb, y + 30);
        return sb.append("</svg>\n").toString();
    }

    private void axis(StringBuilder sb, int height) {
        double span = (tEnd - t0) / 1e9;
        double step = niceStep(span / 8);
        sb.append("<g class=\"axis\" stroke=\"#bbbbbb\">\n");
        for (double s = 0; s <= span + 1e-9; s += step) {
            double x = x(t0 + (long) (s * 1e9));
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TOP - 8, x,
                    height - 60));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" stroke=\"none\" fill=\"#555555\" "
                    + "text-anchor=\"middle\">+%s s</text>%n", x, TOP - 12, trim(s)));
        }
        sb.append("</g>\n");
    }

    private void lane(StringBuilder sb, ChildHistory c, int y) {
        ChildOutcome o = c.outcome();
        boolean bad = o.failsTheClose();
        sb.append("<g class=\"lane\" data-child=\"").append(esc(c.key().toString())).append("\">\n");
        if (bad) {
            sb.append("<rect x=\"0\" y=\"").append(y).append("\" width=\"").append(WIDTH).append("\" height=\"")
                    .append(LANE).append("\" fill=\"#fde0e0\"/>\n");
        }
        String label = c.key() + " pid " + c.pid() + "  " + o.outcome() + (o.diagnosis() == null ? "" : " " + o.diagnosis());
        sb.append("<text x=\"8\" y=\"").append(y + 19).append("\"").append(bad ? " fill=\"#b71c1c\" font-weight=\"bold\"" : "")
                .append(">").append(esc(clip(label, 44))).append("</text>\n");
        long end = c.reaped() != null ? c.reaped().timeNanos() : tEnd;
        int barY = y + (LANE - BAR) / 2;
        MailboxTransition start = c.stateAtStart();
        long segStart = t0;
        int state = start == null ? -1 : start.toState();
        for (MailboxTransition t : c.transitions()) {
            bar(sb, segStart, Math.min(t.timeNanos(), end), state, barY);
            segStart = Math.max(segStart, t.timeNanos());
            state = t.toState();
        }
        bar(sb, segStart, end, state, barY);
        if (c.published() != null) {
            double x = x(c.published().timeNanos());
            sb.append(String.format(Locale.ROOT, "<path class=\"broadcast\" d=\"M %.1f %d L %.1f %d L %.1f %d Z\" "
                    + "fill=\"#1565c0\"><title>shutdown published</title></path>%n", x - 5, y + 1, x + 5, y + 1, x, y + 9));
        }
        if (c.acked() != null) {
            sb.append(String.format(Locale.ROOT, "<circle class=\"ack\" cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"#2e7d32\">"
                    + "<title>acked</title></circle>%n", x(CloseVerdict.ackTime(c.acked())), y + LANE / 2));
        }
        if (c.diagnosed() != null) {
            double x = x(c.diagnosed().timeNanos());
            int cy = y + LANE / 2;
            sb.append(String.format(Locale.ROOT, "<path class=\"diagnosis\" d=\"M %.1f %d L %.1f %d L %.1f %d L %.1f %d Z\" "
                    + "fill=\"#ef6c00\"><title>%s</title></path>%n", x, cy - 7, x + 7, cy, x, cy + 7, x - 7, cy,
                    esc(c.diagnosed().diagnosis())));
        }
        if (c.escalation() != null) {
            double x = x(c.escalation().timeNanos());
            sb.append(String.format(Locale.ROOT, "<path class=\"escalation\" d=\"M %.1f %d L %.1f %d L %.1f %d Z\" "
                    + "fill=\"#c62828\"><title>signal %d</title></path>%n", x - 5, y + LANE - 1, x + 5, y + LANE - 1, x,
                    y + LANE - 9, c.escalation().signal()));
        }
        if (c.reaped() != null) {
            sb.append(String.format(Locale.ROOT, "<rect class=\"reap\" x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" "
                    + "fill=\"#000000\"><title>reaped</title></rect>%n", x(c.reaped().timeNanos()) - 1.5, y + 3, LANE - 6));
        }
        if (c.shutdownOverwrite() != null) {
            double x = x(c.shutdownOverwrite().timeNanos());
            sb.append(String.format(Locale.ROOT, "<path class=\"overwrite\" d=\"M %.1f %d L %.1f %d M %.1f %d L %.1f %d\" "
                    + "stroke=\"#b71c1c\" stroke-width=\"3\"><title>SHUTDOWN overwritten</title></path>%n",
                    x - 6, y + 4, x + 6, y + LANE - 4, x + 6, y + 4, x - 6, y + LANE - 4));
        }
        sb.append("</g>\n");
    }

    private void bar(StringBuilder sb, long from, long to, int state, int y) {
        if (to <= from && !(to == from && from == t0)) {
            return;
        }
        double x1 = x(from);
        double w = Math.max(1, x(to) - x1);
        String colour = state >= 0 && state < STATE_COLOURS.length ? STATE_COLOURS[state] : "#eeeeee";
        sb.append(String.format(Locale.ROOT, "<rect class=\"state\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                + "fill=\"%s\" stroke=\"#78909c\" stroke-width=\"0.5\"><title>%s</title></rect>%n", x1, y, w, BAR, colour,
                state < 0 ? "unknown" : MailboxStates.name(state)));
    }

    private void legend(StringBuilder sb, int y) {
        sb.append("<g class=\"legend\" font-size=\"11\">\n");
        int x = 10;
        for (int s = 0; s < STATE_COLOURS.length; s++) {
            sb.append("<rect x=\"").append(x).append("\" y=\"").append(y - 10).append("\" width=\"12\" height=\"12\" fill=\"")
                    .append(STATE_COLOURS[s]).append("\"/><text x=\"").append(x + 16).append("\" y=\"").append(y)
                    .append("\">").append(MailboxStates.name(s)).append("</text>\n");
            x += 135;
        }
        y += 22;
        String[][] marks = {{"#1565c0", "broadcast"}, {"#2e7d32", "ack"}, {"#ef6c00", "diagnosis"},
            {"#c62828", "escalation"}, {"#000000", "reap"}, {"#fde0e0", "survivor / killed lane"}};
        x = 10;
        for (String[] m : marks) {
            sb.append("<rect x=\"").append(x).append("\" y=\"").append(y - 10).append("\" width=\"12\" height=\"12\" fill=\"")
                    .append(m[0]).append("\"/><text x=\"").append(x + 16).append("\" y=\"").append(y).append("\">")
                    .append(m[1]).append("</text>\n");
            x += 150;
        }
        sb.append("</g>\n");
    }

    private double x(long t) {
        double f = (double) (Math.min(Math.max(t, t0), tEnd) - t0) / (tEnd - t0);
        return LABEL_WIDTH + f * (WIDTH - LABEL_WIDTH - RIGHT);
    }

    private static long latest(ChildHistory c) {
        long t = Long.MIN_VALUE;
        for (var e : new dev.vigil.journal.JournalEvent[] {c.published(), c.acked(), c.reaped(), c.diagnosed(),
            c.escalation(), c.released()}) {
            if (e != null) {
                t = Math.max(t, e.timeNanos());
            }
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
        String v = String.format(Locale.ROOT, "%.3f", s);
        v = v.replaceAll("0+$", "");
        return v.endsWith(".") ? v.substring(0, v.length() - 1) : v;
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
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
