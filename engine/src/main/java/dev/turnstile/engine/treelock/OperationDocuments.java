package dev.turnstile.engine.treelock;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.Text;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

/**
 * Reads the operation documents hosts already have: the tree from the root down to the nodes an
 * operation locks, as nested XML elements or JSON objects. The leaves are the nodes to lock.
 * Anything unexpected (a missing id, an unknown attribute or key, text, a mode on an inner node)
 * fails naming the node's path in the document, so a typo never locks the wrong subtree.
 */
final class OperationDocuments {
    /** Strict: a key twice, or a second document after the first, is refused (a lenient reader took the last, or the first). */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private static final Set<String> JSON_KEYS = Set.of("type", "id", "mode", "children");

    private OperationDocuments() {
    }

    static TreeLockRequest parse(String document) {
        if (document == null || document.isBlank()) {
            throw bad(document, "(document)", "an XML or JSON operation document is required");
        }
        TreeLockRequest.Builder request = TreeLockRequest.builder();
        String trimmed = document.strip();
        if (trimmed.startsWith("<")) {
            xmlNode(document, readXml(document), null, request);
        } else if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
            JsonNode root = readJson(document);
            if (root.isArray()) {
                if (root.isEmpty()) {
                    throw bad(document, "(root)", "the array names no nodes");
                }
                root.forEach(n -> jsonNode(document, n, null, request));
            } else {
                jsonNode(document, root, null, request);
            }
        } else {
            throw bad(document, "(document)", "neither XML (starts with '<') nor JSON (starts with '{' or '[')");
        }
        return request.build();
    }

    private static Element readXml(String document) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            // No DTDs, no external entities: the document may come from a client.
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(document))).getDocumentElement();
        } catch (SAXException e) {
            throw bad(document, "(document)", "not well-formed XML: " + e.getMessage());
        } catch (ParserConfigurationException | IOException e) {
            throw bad(document, "(document)", "cannot be read: " + e);
        }
    }

    private static void xmlNode(String document, Element element, TreePath parent, TreeLockRequest.Builder request) {
        String where = (parent == null ? "" : parent + "/") + element.getTagName();
        NamedNodeMap attributes = element.getAttributes();
        for (int i = 0; i < attributes.getLength(); i++) {
            String name = attributes.item(i).getNodeName();
            if (!name.equals("id") && !name.equals("mode")) {
                throw bad(document, where, "unknown attribute '" + name + "'; a node has id and, on a leaf, mode");
            }
        }
        if (!element.hasAttribute("id")) {
            throw bad(document, where, "has no id attribute");
        }
        TreePath path = path(document, where, parent, element.getTagName(), element.getAttribute("id"));
        boolean leaf = true;
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element e) {
                leaf = false;
                xmlNode(document, e, path, request);
            } else if (child instanceof Text text && !text.getTextContent().isBlank()) { // CDATA too
                throw bad(document, path.toString(), "holds text '" + child.getTextContent().strip() + "'; only child elements");
            }
        }
        addNode(document, path, leaf, element.hasAttribute("mode") ? element.getAttribute("mode") : null, request);
    }

    private static JsonNode readJson(String document) {
        try {
            return JSON.readTree(document);
        } catch (JacksonException e) {
            // Our words for the refusals a caller meets, whatever the JSON library says.
            String why = e.getOriginalMessage().startsWith("Trailing token") ? "a second document after the first (one document names the nodes)"
                    : e.getOriginalMessage().startsWith("Duplicate") && e.processor() instanceof JsonParser p
                    ? "Duplicate field '" + p.streamReadContext().currentName() + "'" : e.getOriginalMessage();
            throw bad(document, "(document)", "not valid JSON: " + why);
        }
    }

    private static void jsonNode(String document, JsonNode node, TreePath parent, TreeLockRequest.Builder request) {
        String where = parent == null ? "(root)" : parent + "/(child)";
        if (!node.isObject()) {
            throw bad(document, where, "a node is an object with type, id and optionally children or mode");
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            if (!JSON_KEYS.contains(field.getKey())) {
                throw bad(document, where, "unknown key '" + field.getKey() + "'; a node has " + JSON_KEYS.stream().sorted().toList());
            }
        }
        TreePath path = path(document, where, parent, text(document, where, node, "type"), text(document, where, node, "id"));
        JsonNode children = node.get("children");
        if (children != null && (!children.isArray() || children.isEmpty())) {
            throw bad(document, path.toString(), "children must be a non-empty array; leave it out on a leaf");
        }
        if (children != null) {
            children.forEach(child -> jsonNode(document, child, path, request));
        }
        addNode(document, path, children == null, text(document, path.toString(), node, "mode"), request);
    }

    /** The text of {@code key}, or null without it; a number, a boolean or a structure there is refused. */
    private static String text(String document, String where, JsonNode node, String key) {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw bad(document, where, key + " = " + value + ": must be text in quotes");
        }
        return value.asString();
    }

    private static TreePath path(String document, String where, TreePath parent, String type, String id) {
        if (type == null || id == null) {
            throw bad(document, where, "a node needs a type and an id");
        }
        try {
            return parent == null ? TreePath.root(type, id) : parent.child(type, id);
        } catch (EngineRuntimeException e) {
            throw bad(document, where, e.getMessage());
        }
    }

    private static void addNode(String document, TreePath path, boolean leaf, String mode, TreeLockRequest.Builder request) {
        if (!leaf) {
            if (mode != null) {
                throw bad(document, path.toString(), "mode is only allowed on a leaf, the node that is locked");
            }
            return;
        }
        try {
            request.node(path, mode == null ? TreeLockMode.EXCLUSIVE : TreeLockMode.parse(mode));
        } catch (EngineRuntimeException e) {
            throw bad(document, path.toString(), e.getMessage());
        }
    }

    private static EngineRuntimeException bad(String document, String where, String rule) {
        return EngineRuntimeException.badArgument("operation document at " + where, document, rule);
    }
}
