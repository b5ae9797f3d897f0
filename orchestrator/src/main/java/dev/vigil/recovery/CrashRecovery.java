package dev.vigil.recovery;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.PoolJournal;
import dev.vigil.contain.ContainedProcess;
import dev.vigil.contain.GuardianRecord;
import dev.vigil.contain.Leftovers;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseEndedByOrchestratorDeath;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalOwner;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.MailboxRecovered;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.OrchestratorDeathFound;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;

/**
 * Recovers what a dead orchestrator left in a journal directory this process now owns: kills everything of
 * its containment (its cgroup tree, or its process groups) and any process still mapping one of its
 * mailboxes, reads its guardian's record, ends its incomplete closes in the journal
 * ({@code CloseEndedByOrchestratorDeath}), frees its mailboxes ({@code MailboxRecovered}) and journals
 * {@code OrchestratorDeathFound}. Every wait is bounded.
 */
public final class CrashRecovery {
    private static final long KILL_BOUND_NANOS = TimeUnit.SECONDS.toNanos(3);

    private CrashRecovery() {
    }

    /** What a recovery did, for the orchestrator's callers (the CLI prints {@link #describe()}). */
    public record Outcome(int deadPid, int processesKilled, int containersRemoved, int mailboxesFreed, int closesEnded,
            boolean everythingGone, String guardianRecord) {
        public String describe() {
            return "recovered what orchestrator pid=" + deadPid + " left (it is gone): " + processesKilled + " process(es) killed, "
                    + closesEnded + " incomplete close(s) ended"
                    + (closesEnded > 0 ? " (class " + dev.vigil.close.decision.SurvivorClass.ORCHESTRATOR_DIED.name() + ": "
                            + dev.vigil.close.decision.SurvivorClass.ORCHESTRATOR_DIED.nextStep() + ")" : "")
                    + ", " + mailboxesFreed + " mailbox(es) freed"
                    + (guardianRecord.isEmpty() ? ", no guardian record" : "; " + guardianRecord)
                    + (everythingGone ? "" : "; NOT EVERYTHING DIED within the bound");
        }
    }

    /**
     * Null when there was nothing to recover (no previous owner record and no mailbox left in the map).
     *
     * @param journalDir the journal directory (its guardian records are beside it)
     * @param before     the journal as the open read it before this process opened the dir for writing (null: a
     *                   journal this process was given open; it is read now, and damage in it refused)
     */
    public static Outcome recover(OwnerRecord previous, Path journalDir, PoolJournal journal, MailboxStore mailboxes,
            JournalRead before) throws InterruptedException {
        List<MailboxId> left = mailboxes.ids();
        List<Path> records = guardianRecords(journalDir);
        if (previous == null && left.isEmpty() && records.isEmpty()) {
            return null;
        }
        int deadPid = previous != null ? previous.pid() : 0;
        long deadTicks = previous != null ? previous.startTicks() : -1;
        // 1. nothing of it alive: its containment, then anything still mapping one of its mailboxes
        Leftovers.Swept contained = endContainment(previous);
        int killed = contained.killed().size();
        int removed = contained.containersRemoved();
        boolean gone = contained.empty();
        Map<MailboxId, Integer> childPids = new LinkedHashMap<>();
        for (MailboxId id : left) {
            int pid = mailboxes.lookup(id).map(MailboxHandle::mailbox).map(m -> m.childPidAcquire()).orElse(0);
            childPids.put(id, pid);
            if (deadPid == 0) {
                deadPid = mailboxes.lookup(id).map(h -> h.mailbox().parentPid()).orElse(0);
            }
            if (!Leftovers.killIfMapping(pid, mailboxes.mapFile(), KILL_BOUND_NANOS)) {
                gone = false;
            }
        }
        // 2. the guardian's record of that death
        StringBuilder guardian = new StringBuilder();
        for (Path r : records) {
            try {
                GuardianRecord g = GuardianRecord.read(r);
                if (guardian.length() > 0) {
                    guardian.append("; ");
                }
                guardian.append(g.describe());
                if (deadPid == 0) {
                    deadPid = g.orchestratorPid();
                }
            } catch (RuntimeException unreadable) {
                guardian.append(unreadable.getMessage());
            }
            try {
                Files.move(r, r.resolveSibling(r.getFileName() + ".recovered"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException ignored) {
                // read again next time: harmless
            }
        }
        // 3. its incomplete closes, ended because it died
        int ended = endIncompleteCloses(before != null ? before : JournalRead.refusingDamage(journalDir, journal, deadPid),
                journal, deadPid);
        // 4. its mailboxes, now that no process holds them
        int freed = 0;
        if (gone) {
            for (Map.Entry<MailboxId, Integer> e : childPids.entrySet()) {
                MailboxId id = e.getKey();
                long offset = mailboxes.lookup(id).map(MailboxHandle::offset).orElse(-1L);
                if (mailboxes.release(id)) {
                    freed++;
                    journal.append(new MailboxRecovered(MonotonicClock.nanos(), journal.orchestratorPid(), id.poolId(), 0,
                            id.group(), id.index(), offset, deadPid));
                }
            }
        }
        journal.append(new OrchestratorDeathFound(MonotonicClock.nanos(), journal.orchestratorPid(), "", 0, deadPid,
                deadTicks, killed, removed, freed, guardian.toString()));
        journal.writer().flush();
        return new Outcome(deadPid, killed, removed, freed, ended, gone, guardian.toString());
    }

    /**
     * Ends every process of the dead owner's containment (its cgroup tree, or its process groups), bounded. Recovery's
     * first step; also what an open that fails after finding a dead owner (its damaged journal cannot be set aside,
     * a writer cannot open) does before it says why: a journal problem never leaves a dead run's processes alive.
     */
    public static Leftovers.Swept endContainment(OwnerRecord previous) throws InterruptedException {
        List<ContainedProcess> killed = new ArrayList<>();
        int removed = 0;
        boolean gone = true;
        if (previous != null && previous.cgroupRoot() != null && !previous.cgroupRoot().isEmpty()) {
            Leftovers.Swept s = Leftovers.killCgroupTree(Path.of(previous.cgroupRoot()), KILL_BOUND_NANOS);
            killed.addAll(s.killed());
            removed += s.containersRemoved();
            gone &= s.empty();
        }
        if (previous != null && previous.processGroupsFile() != null && !previous.processGroupsFile().isEmpty()) {
            Leftovers.Swept s = Leftovers.killProcessGroups(Path.of(previous.processGroupsFile()), KILL_BOUND_NANOS);
            killed.addAll(s.killed());
            gone &= s.empty();
        }
        return new Leftovers.Swept(killed, removed, gone);
    }

    private static List<Path> guardianRecords(Path journalDir) {
        Path first = JournalOwner.sibling(journalDir, "-guardian-");
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(first.getParent(), first.getFileName() + "*.json")) {
            ds.forEach(out::add);
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /**
     * A journal as an orchestrator finds it at open: the closes it holds that never ended and the children spawned and
     * never reaped, read to its end or to its damage ({@link #damage()}, with every event before it read).
     */
    public static final class JournalRead {
        private final Map<Long, CloseStarted> open = new LinkedHashMap<>();
        private final Map<String, Set<String>> unreaped = new HashMap<>();
        private long lastGoodIndex = -1;
        private dev.vigil.journal.JournalCorruptException damage;

        private JournalRead() {
        }

        /**
         * Reads the journal in {@code dir} from its start (nothing when it holds none yet: a dir the writer is to
         * create). Damage ends the read and is kept, not thrown; any other failure to read it (not a journal, a newer
         * schema, unreadable) is thrown, as the writer's open would throw it.
         */
        public static JournalRead of(Path dir) {
            JournalRead read = new JournalRead();
            if (!Files.exists(dir.resolve(dev.vigil.journal.JournalSchema.MARKER_FILE))) {
                return read;
            }
            try (JournalReader r = JournalReader.open(dir)) {
                r.fromStart().readAll((i, e) -> {
                    read.lastGoodIndex = i;
                    read.note(e);
                    return true;
                });
            } catch (dev.vigil.journal.JournalCorruptException damaged) {
                read.damage = damaged;
            }
            return read;
        }

        /**
         * The journal an orchestrator opened with a writer it was given (it cannot be set aside), read after its own
         * first events: damage is refused in one line that says how to go on.
         */
        static JournalRead refusingDamage(Path dir, PoolJournal journal, int deadPid) {
            journal.writer().flush();
            JournalRead read = of(dir);
            if (read.damage != null) {
                // Its processes are gone already (killed above); what cannot be done is ending its closes in a journal
                // that stops at the damage: events appended after it would be unreadable too.
                throw new dev.vigil.journal.JournalCorruptException(read.damage.getMessage() + "; the closes orchestrator"
                        + " pid=" + deadPid + " left open cannot be ended in a journal read only up to its damage, so"
                        + " nothing starts on it (that orchestrator's processes were ended): move the journal dir aside"
                        + " (vigil-replay still reads it up to the damage) and start again", read.damage.index(),
                        read.damage);
            }
            return read;
        }

        private void note(JournalEvent e) {
            if (e instanceof CloseStarted s) {
                open.put(s.closeId(), s);
            } else if (e instanceof CloseCompleted c) {
                open.remove(c.closeId());
            } else if (e instanceof CloseEndedByOrchestratorDeath d) {
                open.remove(d.closeId());
            } else if (e instanceof ChildSpawned c) {
                unreaped.computeIfAbsent(c.poolId(), k -> new HashSet<>()).add(c.group() + "/" + c.index() + " pid " + c.pid());
            } else if (e instanceof ChildReaped c) {
                Set<String> s = unreaped.get(c.poolId());
                if (s != null) {
                    s.remove(c.group() + "/" + c.index() + " pid " + c.pid());
                }
            }
        }

        /** What ended the read before the journal's end, or null when it was read whole. */
        public dev.vigil.journal.JournalCorruptException damage() {
            return damage;
        }

        /** The index of the last event read whole, -1 for none. */
        public long lastGoodIndex() {
            return lastGoodIndex;
        }
    }

    /** Journals CloseEndedByOrchestratorDeath for every close of another process that has no end in the journal read. */
    private static int endIncompleteCloses(JournalRead read, PoolJournal journal, int deadPid) {
        int self = journal.orchestratorPid();
        int ended = 0;
        for (CloseStarted s : read.open.values()) {
            if (s.orchestratorPid() == self) {
                continue;
            }
            Set<String> children = read.unreaped.getOrDefault(s.poolId(), Set.of());
            journal.append(new CloseEndedByOrchestratorDeath(MonotonicClock.nanos(), self, s.poolId(), s.closeId(),
                    deadPid != 0 ? deadPid : s.orchestratorPid(), children.isEmpty() ? "none" : String.join(",", children)));
            ended++;
        }
        return ended;
    }

    /** Processes as one line each (for messages). */
    static String describe(List<ContainedProcess> processes) {
        return processes.stream().map(ContainedProcess::toString).reduce((a, b) -> a + "; " + b).orElse("none");
    }
}
