package dev.vigil.fleet;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * The shipped position of one journal to one topic, beside the journal:
 * {@code JOURNAL_DIR/shipped-TOPIC.properties} with {@code host}, {@code topic} and {@code index} (the
 * journal index of the last event the cluster acknowledged, every event before it acknowledged too;
 * -1 = none), in hex ({@code 0x...}) as every message and the replay print an index; a decimal one (written before
 * 2026-12-04) is still read. Written by rename, so a shipper killed at any point leaves the old or the new file.
 */
public final class ShipCheckpoint {
    private final Path file;
    private final String host;
    private final String topic;

    public ShipCheckpoint(Path journalDir, String host, String topic) {
        this.file = journalDir.resolve("shipped-" + topic + ".properties");
        this.host = host;
        this.topic = topic;
    }

    public Path file() {
        return file;
    }

    /** The last acknowledged index, -1 when nothing was shipped; a checkpoint of another host id is refused. */
    public long load() {
        if (!Files.exists(file)) {
            return -1;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new FleetInputException("checkpoint file=" + file + " is unreadable: " + e.getMessage(), e);
        }
        String h = p.getProperty("host");
        if (h != null && !h.equals(host)) {
            throw new FleetInputException("checkpoint file=" + file + " was written by host id=" + h
                    + ", this shipper is host id=" + host + " (keep the host id of a journal stable; or move the file away)");
        }
        String index = p.getProperty("index", "-1").strip();
        try {
            return index.startsWith("0x") ? Long.parseUnsignedLong(index.substring(2), 16) : Long.parseLong(index);
        } catch (NumberFormatException e) {
            throw new FleetInputException("checkpoint file=" + file + " has a malformed index=" + p.getProperty("index"));
        }
    }

    public void store(long index) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        String text = "# vigil ship: every journal event up to index is acknowledged by the cluster\n"
                + "host=" + host + "\ntopic=" + topic + "\nindex=" + (index < 0 ? "-1" : "0x" + Long.toHexString(index))
                + "\n";
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("writing checkpoint file=" + file + " failed", e);
        }
    }
}
