package dev.vigil.replay;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * picocli's model of the commands, written in code, each option bound to its command's field. picocli builds a model
 * from annotations by reflection: reading a class's annotations makes a proxy class per annotation type at run time
 * (no JDK 17 class-data archive holds them), and the reflection walks every method up to Object's; the root with
 * {@code show} took ~65 ms of a {@code show}'s ~0.29 s (load 4). The texts and parsed values are the annotated model's
 * (CommandModelTest).
 */
final class CommandModel {
    private CommandModel() {
    }

    /**
     * A command: its name, the one-line header the root's help lists (null for none), its description, and the
     * {@code -h}/{@code -V} options of picocli's {@code mixinStandardHelpOptions} (whose own model is read from
     * annotations).
     */
    static CommandSpec command(Object command, String name, String header, String... description) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name(name);
        if (header != null) {
            spec.usageMessage().header(header);
        }
        // one paragraph: picocli wraps it at the help width (lines given apart were each wrapped, leaving stubs)
        spec.usageMessage().description(String.join(" ", description));
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).type(boolean.class).initialValue(false)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true).type(boolean.class).initialValue(false)
                .description("Print version information and exit.").build());
        return spec;
    }

    /** An option without a value ({@code --json}), false unless given. */
    static void flag(CommandSpec spec, String name, String description, Supplier<Boolean> get, Consumer<Boolean> set) {
        spec.addOption(OptionSpec.builder(name).type(boolean.class).initialValue(false).description(description)
                .getter(getter(get)).setter(setter(set)).build());
    }

    /** An option with a value of {@code type} shown as {@code paramLabel}, null unless given. */
    static <T> OptionSpec.Builder option(Class<T> type, String paramLabel, Supplier<T> get, Consumer<T> set,
            String... names) {
        return OptionSpec.builder(names).type(type).paramLabel(paramLabel).getter(getter(get)).setter(setter(set));
    }

    /**
     * A positional parameter of {@code type} at {@code index}, null unless given: {@code arity} values (required
     * when it asks for at least one, as picocli makes an annotated parameter).
     */
    static <T> PositionalParamSpec.Builder parameter(Class<T> type, String index, String arity, String paramLabel,
            Supplier<T> get, Consumer<T> set) {
        return PositionalParamSpec.builder().type(type).index(index).arity(arity)
                .required(CommandLine.Range.valueOf(arity).min() > 0).paramLabel(paramLabel).getter(getter(get))
                .setter(setter(set));
    }

    /** The journal DIR of a command that reads a whole journal, optional for {@code --kafka}. */
    static void journalDir(CommandSpec spec, Supplier<Path> get, Consumer<Path> set) {
        spec.addPositional(parameter(Path.class, "0", "0..1", "DIR", get, set)
                .description("journal directory (or --kafka)").build());
    }

    /** {@code [DIR] CLOSE} of a command about one close (DIR none with {@code --kafka}; CloseLookup.Target reads them). */
    static void dirAndClose(CommandSpec spec, Supplier<List<String>> get, Consumer<List<String>> set) {
        spec.addPositional(PositionalParamSpec.builder().type(List.class).auxiliaryTypes(String.class)
                .arity("1..2").required(true).paramLabel("[DIR] CLOSE")
                .description("journal directory (none with --kafka) and close id (see: vigil-replay closes)")
                .getter(getter(get)).setter(setter(set)).build());
    }

    private static IGetter getter(Supplier<?> get) {
        return new IGetter() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> T get() {
                return (T) get.get();
            }
        };
    }

    private static <V> ISetter setter(Consumer<V> set) {
        return new ISetter() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> T set(T value) {
                set.accept((V) value);
                return null;
            }
        };
    }
}
