package dev.vigil.cli;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Words of the commands bin/vigil prints for the user to paste ("look closer:", "end them with:"), quoted for a POSIX
 * shell. Before, they were printed as they were: a journal dir with a blank gave a command that named two
 * directories, and one named {@code x $(touch y)} one that ran {@code touch y} when pasted.
 */
final class ShellWords {
    /** What a shell reads as one plain word: printed as it is. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./,:=+@%^-]+");

    private ShellWords() {
    }

    /** {@code word} as one shell word: as it is when plain, else in single quotes (a quote in it as {@code '\''}). */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    static String quote(Path path) {
        return quote(path.toString());
    }
}
