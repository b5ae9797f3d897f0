package dev.vigil.cli;

/** One mistake in a spec file, at a path such as {@code pools[0].groups[1].children}. */
public record SpecProblem(String path, String message) {
    @Override
    public String toString() {
        return path + ": " + message;
    }
}
