/*
 * Promela model of the mailbox protocol, both modes (docs/MAILBOX.md). Run by MailboxModelTest:
 *   spin -a -DSTICKY mailbox.pml && cc -DSAFETY -o pan pan.c && ./pan   -> errors: 0
 *   spin -a -DLEGACY mailbox.pml && cc -DSAFETY -o pan pan.c && ./pan   -> errors: 1 (invalid end state)
 *
 * Processes: the parent's control path (two commands), the closer (publishes shutdown once, at any
 * moment) and the child's serve loop. Every statement is one atomic step of the real code; a read and a
 * later store are separate steps (that gap is the legacy race). The child's idle wait is a blocking guard
 * ("until the state word changes or shutdown is visible"), so a child that can no longer see its shutdown
 * blocks forever and the verifier reports an invalid end state: the lost shutdown.
 *
 * Property: every run ends with all three processes at their end, the child having exited after seeing
 * shutdown (assertions below). Sticky: holds for every interleaving. Legacy: counterexample.
 *
 * With -DDOORBELL the child's idle wait is the doorbell instead (docs/MAILBOX.md, "The doorbell"):
 *   spin -a -DSTICKY -DDOORBELL mailbox.pml                 -> errors: 0  (no lost wake-up)
 *   spin -a -DSTICKY -DDOORBELL -DNO_RECHECK mailbox.pml    -> errors: 1  (invalid end state: the lost wake-up)
 * The child reads the ring count, stores its sleeping flag, re-checks for a request or the shutdown, and only then
 * waits on the ring word (FUTEX_WAIT: blocks while the count equals what it read). The parent and the closer publish,
 * then read the flag and ring (count + 1, FUTEX_WAKE) only if it is set. The wait is unbounded here (the real one is
 * bounded by the parent check, which would turn a lost wake-up into a late one): a lost wake-up is a child blocked
 * forever with a request or the shutdown published, which spin reports as an invalid end state. Each statement is
 * sequentially consistent, as the flag store and the re-check are in the code (DoorbellLitmus checks that ordering).
 */
/*
 * With -DRING this file models the transition ring's flow control instead (docs/MAILBOX.md, "Flow control"):
 *   spin -a -DRING mailbox.pml                                    -> errors: 0  (live drainer: no record lost)
 *   spin -a -DRING -DDRAINER_STOPS mailbox.pml                    -> errors: 0  (every record journaled or counted lost, once)
 *   spin -a -DRING -DDRAINER_STOPS -DEXPECT_NO_LOSS mailbox.pml   -> errors: 1  (a stopped drainer does make writers lap)
 *   spin -a -DRING -DNO_FLOW_CONTROL mailbox.pml                  -> errors: 1  (without flow control a live drainer loses records)
 * Two writers (the parent's control path and the child) record N transitions each into a ring of CAP slots:
 * claim a ticket (fetch-and-add); at the cached limit (the position last read + CAP) re-read the position and wait
 * while the ticket would lap it; write the slot as a seqlock (busy mark, body, ticket + 1). The bounded wait's expiry is Promela's `timeout` (nothing else in the
 * system can move): a live drainer always can, so only a drainer that stopped makes a writer lap. The drainer
 * reads tickets in order (marker, body, marker again), counts an overwritten slot as lost, publishes its position.
 */
#ifdef RING
#define CAP   2
#define N     3                 /* records per writer */
#define W     2                 /* writers */
#define TOTAL 6                 /* N * W */

byte head = 0;                  /* RING_HEAD: next ticket */
byte consumer = 0;              /* RING_CONSUMER_POSITION, written by the drainer only */
#ifdef NO_FLOW_CONTROL
bool flow = false;              /* RING_FLOW_CONTROL */
#else
bool flow = true;
#endif
byte marker[CAP];               /* slot ticket field: ticket + 1, 0 while being written */
byte body[CAP];                 /* slot body: which record (writer * N + i) */
bool journaled[TOTAL];
byte lost = 0;                  /* the drainer's count of records it could not read (overwritten) */
byte finished = 0;              /* writers done */

proctype Writer(byte id)
{
    byte i = 0;
    byte t;
    byte limit = 0;                                      /* the cached limit: consumer position last read + CAP */
    do
    :: i < N ->
        atomic { t = head; head++ };                     /* fetch-and-add */
        if
        :: t < limit -> skip                             /* below the cached limit: room, no read (the position only grows) */
        :: else ->
            do                                           /* flow control: re-read the position; wait, bounded */
            :: !flow -> break
            :: flow && t - consumer < CAP -> limit = consumer + CAP; break
            :: timeout -> break                          /* the wait expired: the drainer is not draining; lap */
            od
        fi;
        marker[t % CAP] = 0;                             /* busy */
        body[t % CAP] = id * N + i;
        marker[t % CAP] = t + 1;                         /* publish (release) */
        i++
    :: else -> break
    od;
    finished++
}

active proctype Drainer()
{
    byte next = 0;
    byte m;
    byte b;
    byte k;
#ifdef DRAINER_STOPS
    bool stopped = false;
#endif
    do
    :: next < head ->
        m = marker[next % CAP];
        if
        :: m == next + 1 ->
            b = body[next % CAP];
            if
            :: marker[next % CAP] == next + 1 -> journaled[b] = true   /* the re-check held: a whole record */
            :: else -> lost++                                          /* overwritten while read */
            fi;
            next++;
            consumer = next
        :: m > next + 1 ->
            lost++;                                                    /* overwritten before read: lapped */
            next++;
            consumer = next
        :: else ->
            if
            :: marker[next % CAP] != m -> skip                         /* claimed, not yet published: wait */
            :: finished == W && marker[next % CAP] == m ->           /* the final drain: never published, or a */
                lost++;                                                /* stale writer overwrote it (RingDrainer: */
                next++;                                                /* stall / drainFinal) */
                consumer = next
            fi
        fi
#ifdef DRAINER_STOPS
    :: !stopped ->
        stopped = true;
        (finished == W)                                                /* stopped (SIGSTOP) until every writer gave up or finished */
#endif
    :: finished == W && next == head -> break
    od;
    k = 0;
    b = 0;
    do
    :: k < TOTAL -> if :: journaled[k] -> b++ :: else -> skip fi; k++
    :: else -> break
    od;
    assert(b + lost == TOTAL);                                         /* every record journaled or counted lost: exact */
#if !defined(DRAINER_STOPS) || defined(EXPECT_NO_LOSS)
    assert(lost == 0)                                                  /* a live drainer loses nothing */
#endif
}

init
{
    atomic { run Writer(0); run Writer(1) }
}

#else
#define IDLE            0
#define CONTROL_REQUEST 4
#define CONTROL_DONE    5
#define SHUTDOWN        3
#define INIT_READY      6

#if !defined(STICKY) && !defined(LEGACY)
#define STICKY
#endif

#ifdef STICKY
#define SHUTDOWN_VISIBLE (shutdownWord != 0)
#else
#define SHUTDOWN_VISIBLE (state == SHUTDOWN)
#endif

byte state = INIT_READY;   /* the state word's state; the seq only orders records and is left out */
#ifdef DOORBELL
bool sleeping = false;     /* DOORBELL_SLEEPING: the child only */
byte bell = 0;             /* DOORBELL_RING: the parent's ring count, the futex word */
#define RING_IF_SLEEPING if :: sleeping -> bell++ :: else -> skip fi
#else
#define RING_IF_SLEEPING skip
#endif
byte shutdownWord = 0;     /* sticky: 0 -> 1 once, by the closer only */
bool published = false;
bool childExited = false;
bool ackWritten = false;

active proctype Parent()
{
    byte r;
    byte commands = 0;
    do
    :: commands < 2 ->
        commands++;
#ifdef STICKY
        /* CAS IDLE|INIT_READY -> CONTROL_REQUEST */
        atomic {
            if
            :: state == IDLE || state == INIT_READY -> state = CONTROL_REQUEST
            :: else -> break
            fi
        };
        RING_IF_SLEEPING;       /* after the publish: read the flag, ring only if set */
#else
        r = state;              /* read under the parent's lock ... */
        if
        :: r == IDLE || r == INIT_READY -> state = CONTROL_REQUEST   /* ... plain store */
        :: else -> break
        fi;
#endif
        /* wait for the answer, or give up when the child is gone or (legacy) SHUTDOWN replaced the request */
        (state == CONTROL_DONE || childExited || state == SHUTDOWN);
        if
        :: state == CONTROL_DONE ->
#ifdef STICKY
            atomic { if :: state == CONTROL_DONE -> state = IDLE :: else -> skip fi }  /* CAS DONE -> IDLE */
#else
            state = IDLE        /* plain store after the read above: can erase a SHUTDOWN stored in between */
#endif
        :: else -> break
        fi
    :: else -> break
    od
}

active proctype Closer()
{
    atomic {                    /* "published" is bookkeeping for the assertion, not a shared word */
#ifdef STICKY
        if :: shutdownWord == 0 -> shutdownWord = 1 :: else -> skip fi;  /* CAS 0 -> epoch */
#else
        state = SHUTDOWN;       /* plain store into the shared state word */
#endif
        published = true
    };
    RING_IF_SLEEPING
}

active proctype Child()
{
    byte r;
#ifdef DOORBELL
    byte rung;
#endif
    do
    :: SHUTDOWN_VISIBLE ->      /* top of every iteration: shutdown first */
        ackWritten = true;
        childExited = true;
        break
    :: else ->
        r = state;
        if
        :: r == CONTROL_REQUEST ->
            /* inside the handler: everything else may interleave here */
#ifdef STICKY
            atomic { if :: state == r -> state = CONTROL_DONE :: else -> skip fi }  /* CAS from the word read */
#else
            state = CONTROL_DONE  /* stored unconditionally */
#endif
        :: else ->
#ifdef DOORBELL
            rung = bell;                       /* the ring count before the flag */
            sleeping = true;
#ifndef NO_RECHECK
            if
            :: state == CONTROL_REQUEST || SHUTDOWN_VISIBLE -> skip   /* the re-check found work: do not block */
            :: else ->
#endif
                (bell != rung);                /* FUTEX_WAIT(&bell, rung): returns at once if rung since */
#ifndef NO_RECHECK
            fi;
#endif
            sleeping = false
#else
            (state != r || SHUTDOWN_VISIBLE)   /* idle until something changes */
#endif
        fi
    od;
    assert(published && ackWritten)
}
#endif
