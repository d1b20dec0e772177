package io.ringwire.rdma.ibverbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks every struct layout of {@link VerbsLayouts} against the C compiler's view of the installed
 * {@code <infiniband/verbs.h>}: compiles {@code src/test/c/ibverbs_layout.c} with gcc, runs it, and
 * compares each {@code sizeof} and each member's {@code offsetof} and {@code sizeof} it prints with the
 * Java layout. Needs gcc and libibverbs-dev. A layout that was never checked is the bug this test
 * exists to catch, so without them it fails under {@code ./ringwire test} (which installs both);
 * under a plain {@code mvn verify} it is skipped with what to install ({@link NativeTestBuild}).
 */
class IbverbsLayoutTest
{
    /** Members of anonymous C unions, which the Java layouts have to name: C path prefix to Java path prefix. */
    private static final Map<String, Map<String, String>> ANONYMOUS_UNIONS = Map.of(
        "ibv_send_wr", Map.of("bind_mw", "bind_mw_or_tso.bind_mw", "tso", "bind_mw_or_tso.tso"));

    @TempDir
    Path tempDir;

    @Test
    void everyStructSizeAndMemberOffsetMatchesTheInstalledVerbsHeader() throws Exception
    {
        final List<String> lines = compileAndRun();
        final List<String> mismatches = new ArrayList<>();
        final Set<String> structsSeen = new HashSet<>();
        int fields = 0;
        for (final String line : lines)
        {
            final String[] f = line.trim().split(" ");
            if (f[0].equals("struct"))
            {
                final GroupLayout layout = VerbsLayouts.BY_C_NAME.get(f[1]);
                if (null == layout)
                {
                    mismatches.add("no Java layout for C " + f[1]);
                    continue;
                }
                structsSeen.add(f[1]);
                if (layout.byteSize() != Long.parseLong(f[2]))
                {
                    mismatches.add("sizeof " + f[1] + ": C " + f[2] + ", Java " + layout.byteSize());
                }
            }
            else if (f[0].equals("field"))
            {
                fields++;
                final GroupLayout layout = VerbsLayouts.BY_C_NAME.get(f[1]);
                final String javaPath = javaPath(f[1], f[2]);
                final long offset;
                final MemoryLayout member;
                try
                {
                    offset = VerbsLayouts.offset(layout, javaPath);
                    member = VerbsLayouts.member(layout, javaPath);
                }
                catch (final RuntimeException ex)
                {
                    mismatches.add(f[1] + "." + f[2] + ": no such Java member (" + ex.getMessage() + ")");
                    continue;
                }
                if (offset != Long.parseLong(f[3]) || member.byteSize() != Long.parseLong(f[4]))
                {
                    mismatches.add(f[1] + "." + f[2] + ": C offset " + f[3] + " size " + f[4] + ", Java offset " +
                        offset + " size " + member.byteSize());
                }
            }
            else
            {
                mismatches.add("unexpected output line: " + line);
            }
        }
        assertEquals(List.of(), mismatches, "layouts that differ from <infiniband/verbs.h>");
        assertEquals(VerbsLayouts.BY_C_NAME.keySet(), structsSeen, "every Java layout is checked against C");
        assertTrue(fields > 150, "the C program lists the members the provider uses: " + fields);
    }

    @Test
    void theCompatPortAttributesAreThePrefixThroughFlags()
    {
        // rdma-core's struct _compat_ibv_port_attr ends with 'flags'; the exported ibv_query_port writes that much.
        assertEquals(48, VerbsLayouts.COMPAT_PORT_ATTR_SIZE);
        assertTrue(VerbsLayouts.PORT_ATTR_LINK_LAYER < VerbsLayouts.COMPAT_PORT_ATTR_SIZE);
        assertTrue(VerbsLayouts.PORT_ATTR_MAX_MSG_SZ < VerbsLayouts.COMPAT_PORT_ATTR_SIZE);
    }

    private static String javaPath(final String struct, final String cPath)
    {
        for (final Map.Entry<String, String> alias : ANONYMOUS_UNIONS.getOrDefault(struct, Map.of()).entrySet())
        {
            if (cPath.equals(alias.getKey()) || cPath.startsWith(alias.getKey() + "."))
            {
                return alias.getValue() + cPath.substring(alias.getKey().length());
            }
        }
        return cPath;
    }

    private List<String> compileAndRun() throws Exception
    {
        final Path binary = tempDir.resolve("ibverbs_layout");
        NativeTestBuild.compile(NativeTestBuild.source("ibverbs_layout.c"), binary);
        final Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        final String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "the layout program did not finish");
        assertEquals(0, run.exitValue(), "layout program exit status; output:\n" + output);
        return output.lines().filter(line -> !line.isBlank()).toList();
    }
}
