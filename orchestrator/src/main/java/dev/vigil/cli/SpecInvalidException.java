package dev.vigil.cli;

import java.util.List;
import java.util.stream.Collectors;

/** A spec file has mistakes; all of them are listed, each with its path in the file. */
public final class SpecInvalidException extends RuntimeException {
    private final transient List<SpecProblem> problems;

    public SpecInvalidException(String file, List<SpecProblem> problems) {
        super("spec=" + file + " has " + problems.size() + " error(s):\n"
                + problems.stream().map(p -> "  " + p).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<SpecProblem> problems() {
        return problems;
    }
}
