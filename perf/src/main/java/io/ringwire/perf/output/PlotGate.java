package io.ringwire.perf.output;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Whether this JVM can draw plots, decided once, and the one way every plot of a run is written.
 * JFreeChart draws through AWT, and AWT cannot draw a string without a font, which it finds through
 * fontconfig: on a host without fonts, or without libfontconfig, the first string drawn throws an
 * {@link Error} ("No physical fonts found"), a {@link RuntimeException} ("Fontconfig head is null")
 * or a {@link LinkageError}, and every later attempt throws again. A bundled font does not help:
 * {@code Font.createFont} initialises fontconfig as well and fails the same way, and works only with
 * {@code FONTCONFIG_FILE} naming a bundled fonts.conf, which still needs libfontconfig. So where no
 * font can be had the plots are skipped, the run says so once and what to install, and writes
 * everything that needs no font.
 *
 * <p>Threading: {@link #jvm()} may be called from any thread; plots are drawn by the control thread
 * after a run.
 */
public final class PlotGate
{
    /** Width of every plot, pixels. */
    public static final int WIDTH = 1000;
    /** Height of every plot, pixels. */
    public static final int HEIGHT = 600;
    /** What gives a Debian host the fonts the plots need. */
    public static final String INSTALL = "apt-get install fontconfig fonts-dejavu-core";
    /** Large enough for the probe's string to touch pixels. */
    private static final int PROBE_SIZE = 32;

    private final String unavailableReason;

    /**
     * Decides once per JVM: AWT's font set-up is itself done once, and fails the same way every time
     * it is tried.
     */
    private static final class Jvm
    {
        private static final PlotGate GATE = new PlotGate(probe());
    }

    /**
     * @param unavailableReason why no plot can be drawn, or null when they can.
     */
    PlotGate(final String unavailableReason)
    {
        this.unavailableReason = unavailableReason;
    }

    /**
     * @return this JVM's gate, which draws a string into an image the first time it is asked for.
     */
    public static PlotGate jvm()
    {
        return Jvm.GATE;
    }

    /**
     * @return whether plots can be drawn here.
     */
    public boolean canDraw()
    {
        return null == unavailableReason;
    }

    /**
     * @return why plots cannot be drawn here (AWT's own message), or null when they can.
     */
    public String unavailableReason()
    {
        return unavailableReason;
    }

    /**
     * @return why no plot is drawn here and what to install for them, for people: "AWT cannot draw
     *         text on this host (...); install a font for them (Debian: ...)".
     */
    public String explanation()
    {
        return "AWT cannot draw text on this host (" + unavailableReason + "); install a font for them (Debian: " +
            INSTALL + ")";
    }

    /**
     * @param benchmark the command whose plots are skipped ("rtt").
     * @return the one line a run prints on stderr when its plots are skipped: that they are, why,
     *         and what to install for them.
     */
    public String skippedLine(final String benchmark)
    {
        return benchmark + ": plots skipped: " + explanation();
    }

    /**
     * Draws a chart into a PNG of {@link #WIDTH} x {@link #HEIGHT} on white, when plots can be drawn
     * here; otherwise writes nothing and builds nothing, so no chart class touches AWT.
     *
     * @param file  the PNG to write.
     * @param chart builds the chart.
     * @return whether the file was written.
     * @throws IOException when it cannot be written.
     */
    public boolean writePng(final Path file, final Supplier<JFreeChart> chart) throws IOException
    {
        if (!canDraw())
        {
            return false;
        }
        final JFreeChart drawn = chart.get();
        drawn.setBackgroundPaint(Color.WHITE);
        try (OutputStream png = Files.newOutputStream(file))
        {
            ChartUtils.writeChartAsPNG(png, drawn, WIDTH, HEIGHT);
        }
        return true;
    }

    /**
     * Draws a string into a small image, headless, as a chart's title and labels are drawn.
     *
     * @return null when it could, else AWT's reason.
     */
    static String probe()
    {
        if (null == System.getProperty("java.awt.headless"))
        {
            System.setProperty("java.awt.headless", "true");
        }
        try
        {
            final BufferedImage image = new BufferedImage(PROBE_SIZE, PROBE_SIZE, BufferedImage.TYPE_INT_RGB);
            final Graphics2D graphics = image.createGraphics();
            try
            {
                graphics.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, PROBE_SIZE / 2));
                graphics.drawString("99.9%", 0, PROBE_SIZE / 2);
            }
            finally
            {
                graphics.dispose();
            }
            return null;
        }
        catch (final OutOfMemoryError | StackOverflowError ex)
        {
            // The JVM's own trouble, not AWT's: not a reason to go on without plots.
            throw ex;
        }
        catch (final Throwable ex)
        {
            // Error, RuntimeException, LinkageError and ExceptionInInitializerError all occur,
            // depending on whether fonts, fontconfig's configuration or the library are missing.
            return describe(ex);
        }
    }

    /**
     * @param failure what AWT threw.
     * @return the first message along its causes (an ExceptionInInitializerError carries none of its
     *         own), or the innermost failure's class when none has one; on one line.
     */
    static String describe(final Throwable failure)
    {
        Throwable innermost = failure;
        for (Throwable cause = failure; null != cause; cause = cause.getCause())
        {
            if (null != cause.getMessage() && !cause.getMessage().isBlank())
            {
                return oneLine(cause.getMessage());
            }
            innermost = cause;
        }
        return innermost.getClass().getName();
    }

    private static String oneLine(final String text)
    {
        return text.strip().replace('\n', ' ').replace('\r', ' ');
    }
}
