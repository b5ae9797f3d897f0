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
 */
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
        }
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
    }
}

active proctype Child()
{
    byte r;
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
            (state != r || SHUTDOWN_VISIBLE)   /* idle until something changes */
        fi
    od;
    assert(published && ackWritten)
}
