package dev.vigil.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.vigil.cli.HelpSummaries;
import picocli.CommandLine;

/** vigil ship --help: its description is one paragraph (given as three long lines, it printed "| pool." stubs). */
class ShipHelpTest {
    @Test
    void theDescriptionIsWrappedAsOneParagraph() {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new ShipCli()).setOut(new PrintWriter(out));
        assertEquals(0, cl.execute("--help"));
        assertEquals(List.of(), HelpSummaries.descriptionStubs(out.toString()), out.toString());
    }
}
