package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The timeline is well-formed SVG with one lane per child, and renders to a picture that is not blank. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimelineTest {
    @TempDir
    Path tmp;

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    private static int lanes(Document doc) {
        NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        int n = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            if ("lane".equals(((Element) groups.item(i)).getAttribute("class"))) {
                n++;
            }
        }
        return n;
    }

    @Test
    void theSvgIsWellFormedWithOneLanePerChildAndRendersToAPicture() throws Exception {
        Path journal = tmp.resolve("journal");
        Scenarios.overlapping(journal);
        Path svg = tmp.resolve("close-2.svg");
        CliRun run = CliRun.of("timeline", journal.toString(), "2", "-o", svg.toString());
        assertEquals(0, run.exit(), run::toString);
        Document doc = parse(svg);
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        assertEquals(4, lanes(doc));
        String text = Files.readString(svg);
        assertTrue(text.contains("class=\"broadcast\"") && text.contains("class=\"reap\"") && text.contains("class=\"ack\""));
        assertTrue(text.contains("fill=\"#fde0e0\""), "the survivor's lane is highlighted");

        File png = tmp.resolve("close-2.png").toFile();
        boolean renderer = Files.isExecutable(Path.of("/usr/bin/rsvg-convert"));
        Assumptions.assumeTrue(renderer, "rsvg-convert (librsvg2-bin) not installed: rendering not checked");
        Process p = new ProcessBuilder("rsvg-convert", "-o", png.getPath(), svg.toString()).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        BufferedImage image = ImageIO.read(png);
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colours.add(image.getRGB(x, y));
            }
        }
        assertTrue(colours.size() > 8, "the picture has content, colours=" + colours.size());
    }

    @Test
    void theHtmlPageWrapsTheSvgAndNamesTheVerdict() throws Exception {
        Path journal = tmp.resolve("journal");
        Scenarios.legacyRace(journal);
        Path html = tmp.resolve("close-1.html");
        CliRun run = CliRun.of("timeline", journal.toString(), "1", "-o", html.toString());
        assertEquals(0, run.exit(), run::toString);
        String page = Files.readString(html);
        assertTrue(page.startsWith("<!DOCTYPE html>") && page.contains("<svg "), page);
        assertTrue(page.contains("SHUTDOWN overwritten by child pid 4711 CONTROL_DONE"), page);
        assertTrue(page.contains("class=\"overwrite\""), "the overwrite is marked on the lane");
    }
}
