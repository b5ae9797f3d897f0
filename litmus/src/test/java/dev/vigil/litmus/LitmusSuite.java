package dev.vigil.litmus;

/** Settings shared by the litmus states and the runner. */
final class LitmusSuite {
    /** jcstress -strideSize and -strideCount: how many states one epoch keeps alive at once. */
    static final int STRIDE_SIZE = 256;
    static final int STRIDE_COUNT = 8;
    static final int STATES_PER_EPOCH = STRIDE_SIZE * STRIDE_COUNT;

    private LitmusSuite() {
    }
}
