package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The timeline read as a picture: rendered to PNG by rsvg-convert (installed by .ci/run), the pixels
 * show what the hover titles say. Labels end before the plot, the survivor class is written in the
 * failing lane, both escalation signals are drawn, the survivor's captured stacks are marked (their
 * summary and dump in the mark's title), and the close's end and the in-flight settling are marked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimelinePictureTest {
    private static final String SVG_NS = "http://www.w3.org/2000/svg";
    private static final int LANE = 40;
    private static final String STACKS_SUMMARY = "eu-stack 0.06 s, 1 thread(s), first: clock_nanosleep < __nanosleep < demo_command";

    @TempDir
    static Path tmp;
    static Document doc;
    static BufferedImage png;

    /** A close with a long group name, an operation in flight, and a child killed by SIGTERM then SIGKILL. */
    @BeforeAll
    static void renderAnEscalatedClose() throws Exception {
        Path journal = tmp.resolve("journal");
        try (ScenarioJournal j = new ScenarioJournal(journal)) {
            ScenarioJournal.Pool p = j.pool("p-picture", "sticky", "calibration-chips-long-name", 3);
            p.enterControlHandler(p.child(1));
            p.inFlightAtFence = 1;
            ScenarioJournal.Close c = p.close(Scenarios.TERM_THEN_KILL, 0).broadcast();
            c.exits(p.child(0), 300, 0);
            c.settle(p.child(0), "FINISHED");
            c.exits(p.child(2), 200, 0);
            j.advanceMillis(1_000);
            c.diagnose(p.child(1), "NOT_OBSERVED", c.evidence(p.child(1), "NOT_OBSERVED", "set", "none", "1.3s", "S",
                    "hrtimer_nanosleep"));
            j.advanceMillis(60);
            c.stacks(p.child(1), "eu-stack", STACKS_SUMMARY, "PID 4711 - process\nTID 4711:\n#0  0x00007f clock_nanosleep\n"
                    + "#1  0x00007f __nanosleep\n#2  0x000055 demo_command\n#3  0x000055 vigil_child_serve\n");
            c.escalate(p.child(1), 15);
            j.advanceMillis(500);
            c.escalate(p.child(1), 9);
            j.advanceMillis(5);
            c.reap(p.child(1), -1, 9);
            c.complete();
        }
        Path svg = tmp.resolve("close.svg");
        CliRun run = CliRun.of("timeline", journal.toString(), "1", "-o", svg.toString());
        assertEquals(0, run.exit(), run::toString);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        doc = f.newDocumentBuilder().parse(svg.toFile());

        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/rsvg-convert")),
                "rsvg-convert (librsvg2-bin, installed by .ci/run) missing: the picture is not checked");
        Path out = tmp.resolve("close.png");
        Process r = new ProcessBuilder("rsvg-convert", "-o", out.toString(), svg.toString()).inheritIO().start();
        assertTrue(r.waitFor(30, TimeUnit.SECONDS), "rsvg-convert did not finish");
        assertEquals(0, r.exitValue());
        png = ImageIO.read(out.toFile());
    }

    private static List<Element> elements(String tag, String cls) {
        NodeList nodes = doc.getElementsByTagNameNS(SVG_NS, tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (cls.equals(e.getAttribute("class"))) {
                out.add(e);
            }
        }
        return out;
    }

    private static double num(Element e, String attr) {
        return Double.parseDouble(e.getAttribute(attr));
    }

    /** Pixels in the box matching the colour test. */
    private static int count(int x0, int y0, int x1, int y1, java.util.function.IntPredicate colour) {
        int n = 0;
        for (int y = Math.max(0, y0); y < Math.min(png.getHeight(), y1); y++) {
            for (int x = Math.max(0, x0); x < Math.min(png.getWidth(), x1); x++) {
                if (colour.test(png.getRGB(x, y) & 0xffffff)) {
                    n++;
                }
            }
        }
        return n;
    }

    private static boolean near(int rgb, int target, int tolerance) {
        return Math.abs((rgb >> 16 & 0xff) - (target >> 16 & 0xff)) <= tolerance
                && Math.abs((rgb >> 8 & 0xff) - (target >> 8 & 0xff)) <= tolerance
                && Math.abs((rgb & 0xff) - (target & 0xff)) <= tolerance;
    }

    private static boolean dark(int rgb) {
        return (rgb >> 16 & 0xff) < 140 && (rgb >> 8 & 0xff) < 140 && (rgb & 0xff) < 140;
    }

    private static Element lane(String outcome) {
        return elements("g", "lane").stream().filter(g -> g.getAttribute("data-outcome").equals(outcome)).findFirst()
                .orElseThrow(() -> new AssertionError("no lane with outcome " + outcome));
    }

    @Test
    void thePictureHasTheSizeTheSvgDeclares() {
        Assumptions.assumeTrue(png != null);
        Element root = doc.getDocumentElement();
        assertEquals((int) num(root, "width"), png.getWidth());
        assertEquals((int) num(root, "height"), png.getHeight());
    }

    @Test
    void everyLabelIsDrawnAndEndsBeforeThePlot() {
        Assumptions.assumeTrue(png != null);
        int labelWidth = (int) num(doc.getDocumentElement(), "data-label-width");
        for (Element lane : elements("g", "lane")) {
            int y = (int) num(lane, "data-y");
            assertTrue(count(4, y + 2, labelWidth / 2, y + LANE - 2, TimelinePictureTest::dark) > 30
                    || count(4, y + 2, labelWidth / 2, y + LANE - 2, rgb -> near(rgb, 0xb71c1c, 60)) > 30,
                    "label text drawn in lane " + lane.getAttribute("data-child"));
            int spill = count(labelWidth - 8, y + 1, labelWidth - 1, y + LANE - 1,
                    rgb -> !near(rgb, 0xffffff, 8) && !near(rgb, 0xfde0e0, 8));
            assertEquals(0, spill, "label of lane " + lane.getAttribute("data-child") + " runs into the plot");
        }
    }

    @Test
    void theSurvivorClassIsWrittenInItsLane() {
        Assumptions.assumeTrue(png != null);
        Element killed = lane("KILLED_BY_ESCALATION");
        List<Element> labels = elements("text", "class-label");
        assertEquals(1, labels.size());
        Element label = labels.get(0);
        assertEquals("NOT_OBSERVED", label.getTextContent());
        int x = (int) num(label, "x");
        int y = (int) num(label, "y");
        int laneY = (int) num(killed, "data-y");
        assertTrue(y > laneY && y < laneY + LANE, "class label inside the killed lane");
        boolean rightAligned = "end".equals(label.getAttribute("text-anchor"));
        int x0 = rightAligned ? x - 110 : x;
        int text = count(x0, y - 10, x0 + 110, y + 2, rgb -> near(rgb, 0xbf360c, 70));
        assertTrue(text > 40, "the class is drawn on the picture, orange pixels=" + text);
    }

    @Test
    void bothEscalationSignalsAreDrawn() {
        Assumptions.assumeTrue(png != null);
        Element killed = lane("KILLED_BY_ESCALATION");
        int laneY = (int) num(killed, "data-y");
        List<Element> marks = elements("path", "escalation");
        assertEquals(List.of("15", "9"), marks.stream().map(m -> m.getAttribute("data-signal")).toList());
        for (Element m : marks) {
            int x = (int) Math.round(num(m, "data-x"));
            int red = count(x - 3, laneY + LANE - 8, x + 4, laneY + LANE - 1, rgb -> near(rgb, 0xc62828, 40));
            assertTrue(red > 8, "signal " + m.getAttribute("data-signal") + " drawn at x=" + x + ", red pixels=" + red);
        }
        List<String> names = elements("text", "escalation-label").stream().map(Element::getTextContent).toList();
        assertEquals(List.of("TERM", "KILL"), names);
    }

    @Test
    void theCloseEndAndTheSettlingAreMarked() {
        Assumptions.assumeTrue(png != null);
        Element end = (Element) elements("g", "close-end").get(0).getElementsByTagNameNS(SVG_NS, "line").item(0);
        int x = (int) Math.round(num(end, "x1"));
        int y1 = (int) num(end, "y1");
        int y2 = (int) num(end, "y2");
        int drawn = count(x - 1, y1, x + 2, y2, rgb -> near(rgb, 0x37474f, 50));
        assertTrue(drawn > (y2 - y1) / 2, "dashed end line drawn over the lanes, pixels=" + drawn);
        assertTrue(end.getParentNode().getTextContent().startsWith("close completed +"), "end line labelled");

        Element settling = elements("g", "settling").get(0);
        assertEquals("1", settling.getAttribute("data-in-flight"));
        List<Element> settled = elements("rect", "settled");
        assertEquals(1, settled.size());
        int sx = (int) Math.round(num(settled.get(0), "x") + 1.5);
        int sy = (int) num(settled.get(0), "y");
        assertTrue(count(sx - 1, sy, sx + 2, sy + 16, rgb -> near(rgb, 0x00897b, 50)) > 10, "settle mark drawn");
        assertTrue(settling.getTextContent().contains("in flight at fence: 1 (1 finished, 0 abandoned)"),
                settling.getTextContent());
    }

    @Test
    void theCapturedStacksAreMarkedInTheSurvivorsLaneWithTheDumpInTheTitle() {
        List<Element> marks = elements("rect", "stacks");
        assertEquals(1, marks.size(), "one stacks mark: only the killed child had its stacks captured");
        Element mark = marks.get(0);
        String title = mark.getElementsByTagNameNS(SVG_NS, "title").item(0).getTextContent();
        assertTrue(title.startsWith("stacks captured +") && title.contains(STACKS_SUMMARY), title);
        assertTrue(title.contains("#2  0x000055 demo_command"), "the dump's lines are in the title: " + title);
        double escalationX = num(elements("path", "escalation").get(0), "data-x");
        assertTrue(num(mark, "data-x") <= escalationX, "captured before the first signal");
        Assumptions.assumeTrue(png != null);
        int laneY = (int) num(lane("KILLED_BY_ESCALATION"), "data-y");
        int x = (int) Math.round(num(mark, "x"));
        int y = (int) num(mark, "y");
        int w = (int) Math.round(num(mark, "width"));
        assertTrue(y > laneY && y < laneY + LANE, "the mark is in the killed child's lane");
        int brown = count(x, y, x + w, y + 4, rgb -> near(rgb, 0x795548, 40));
        assertTrue(brown > 20, "stacks mark drawn, brown pixels=" + brown);
    }
}
