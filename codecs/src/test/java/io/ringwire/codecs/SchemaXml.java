package io.ringwire.codecs;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test support: the schema files sbe-tool generates from, parsed as XML, for the tests that hold the
 * schema, the generated codecs and {@link MessageValidator} to one another. The files are read from
 * the source tree (not the classpath copies), from the repository named by
 * {@code ringwire.repo.dir} (Maven sets it) or else from the working directory.
 */
final class SchemaXml
{
    static final String NAMESPACE = "http://fixprotocol.io/2016/sbe";
    /** The schema the main codecs are generated from. */
    static final String TRADING = "src/main/resources/sbe/ringwire-trading.xml";
    /** Version 1 as released, frozen; generated into {@code io.ringwire.codecs.trading.v1} for tests. */
    static final String RELEASED_VERSION_1 = "src/test/resources/sbe/ringwire-trading-v1.xml";

    private static final String MODULE_IN_REPO = "codecs";

    private SchemaXml()
    {
    }

    /**
     * @param inModule path of the schema inside the codecs module, e.g. {@link #TRADING}.
     * @return the schema's root document, namespace-aware, with DTDs refused.
     * @throws Exception when the file is missing or is not well-formed XML.
     */
    static Document parse(final String inModule) throws Exception
    {
        final Path path = path(inModule);
        assertTrue(Files.isRegularFile(path), () -> "schema not found at " + path.toAbsolutePath());
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        final Document document = factory.newDocumentBuilder().parse(path.toFile());
        assertEquals(NAMESPACE, document.getDocumentElement().getNamespaceURI());
        return document;
    }

    /** Message name to template id, as the schema declares them. */
    static Map<String, Integer> messages(final Document schema)
    {
        final NodeList messages = schema.getElementsByTagNameNS(NAMESPACE, "message");
        final Map<String, Integer> byName = new TreeMap<>();
        for (int i = 0; i < messages.getLength(); i++)
        {
            final Element message = (Element)messages.item(i);
            final Integer previous = byName.put(message.getAttribute("name"), Integer.valueOf(message.getAttribute("id")));
            assertEquals(null, previous, "message declared twice: " + message.getAttribute("name"));
        }
        assertFalse(byName.isEmpty(), "no messages found in the schema");
        return byName;
    }

    private static Path path(final String inModule)
    {
        final String repoDir = System.getProperty("ringwire.repo.dir");
        if (null != repoDir && !repoDir.isBlank())
        {
            final Path inRepo = Path.of(repoDir, MODULE_IN_REPO, inModule);
            if (Files.isRegularFile(inRepo))
            {
                return inRepo;
            }
        }
        final Path inModuleDir = Path.of(inModule);
        if (Files.isRegularFile(inModuleDir))
        {
            return inModuleDir;
        }
        return Path.of(MODULE_IN_REPO, inModule);
    }
}
