package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.editlock.Paragraph;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.safety.Cleaner;
import org.jsoup.safety.Safelist;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An article's HTML as the server keeps it (jsoup): sanitised by a {@link Safelist}, serialised
 * without pretty-printing (so a text that did not change is byte for byte the same), and split into
 * paragraphs at the type's tags. Paragraph ids ({@code data-pid}) belong to the server: a saved
 * article keeps only ids the stored article has, once each, and every other paragraph gets a fresh
 * random id, so an editor can never aim a later save at other text; a paragraph's saved content
 * holds no ids at all.
 */
final class Paragraphs {
    static final String ID_ATTRIBUTE = "data-pid";
    /** Passes of {@link #canonical} before HTML that never reads back as itself is refused. */
    private static final int MAX_PASSES = 5;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final List<String> tags;
    private final String selector;
    /** What an article may hold: jsoup's relaxed list, the paragraph tags, and ids on those. */
    private final Safelist article;
    /** What one paragraph's content may hold: the same, without ids anywhere. */
    private final Safelist content;

    Paragraphs(List<String> tags) {
        this.tags = List.copyOf(tags);
        this.selector = String.join(",", tags);
        this.content = Safelist.relaxed().addTags(tags.toArray(String[]::new));
        this.article = Safelist.relaxed().addTags(tags.toArray(String[]::new));
        for (String tag : tags) {
            article.addAttributes(tag, ID_ATTRIBUTE);
        }
    }

    /**
     * The stored form of {@code html}: sanitised, and an id on every paragraph — the one it carries
     * if {@code knownIds} has it and no earlier paragraph took it, else a fresh one.
     */
    String canonical(String html, Set<String> knownIds) {
        // Until it reads back as itself: HTML the parser repairs (a paragraph inside <noscript> in one)
        // may come out of one pass as text a second parse splits otherwise, and its ids with it — then
        // every read gave the same article new ids. Each pass keeps the ids the last one gave.
        Set<String> known = new HashSet<>(knownIds);
        String text = html;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            Document doc = clean(text, article);
            Set<String> seen = new HashSet<>();
            for (Element e : doc.body().select(selector)) {
                String id = e.attr(ID_ATTRIBUTE);
                if (id.isEmpty() || !known.contains(id) || !seen.add(id)) {
                    do {
                        id = newId();
                    } while (known.contains(id) || !seen.add(id));
                    e.attr(ID_ATTRIBUTE, id);
                }
            }
            String out = doc.body().html();
            if (out.equals(text)) {
                return out;
            }
            known.addAll(seen);
            text = out;
        }
        throw EngineRuntimeException.badArgument("article HTML", html.length() > 80 ? html.substring(0, 80) + "…" : html,
                "it does not settle into paragraphs: each reading of it gives other ones");
    }

    /** The stored form of an article already stored (its own ids kept): for articles written before sanitising. */
    String canonical(String storedHtml) {
        return canonical(storedHtml, byId(storedHtml).keySet());
    }

    List<Paragraph> of(String html) {
        return byId(html).entrySet().stream().map(e -> new Paragraph(e.getKey(), e.getValue())).toList();
    }

    /** The paragraphs in order, id to outer HTML. */
    Map<String, String> byId(String html) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Element e : parse(html).body().select(selector)) {
            out.putIfAbsent(e.attr(ID_ATTRIBUTE), e.outerHtml());
        }
        return out;
    }

    /**
     * The stored article with one paragraph's content replaced by {@code contentHtml}, sanitised and
     * without ids. Null if the article has no such paragraph; {@link Split} if the content would
     * change the article's paragraphs (a paragraph tag inside it ends the paragraph when read back).
     */
    String replace(String storedHtml, String paragraphId, String contentHtml) {
        String before = canonical(storedHtml);
        Document doc = parse(before);
        Element target = doc.body().select(selector).stream()
                .filter(e -> e.attr(ID_ATTRIBUTE).equals(paragraphId)).findFirst().orElse(null);
        if (target == null) {
            return null;
        }
        List<Node> nodes = new ArrayList<>(clean(contentHtml, content).body().childNodes());
        target.empty();
        nodes.forEach(target::appendChild);
        String after = doc.body().html();
        // Read back as every later reader will: the same paragraphs, each with its id, or it split.
        List<String> ids = parse(after).body().select(selector).stream().map(e -> e.attr(ID_ATTRIBUTE)).toList();
        if (!ids.equals(List.copyOf(byId(before).keySet()))) {
            throw new Split(paragraphId, String.join(", ", tags));
        }
        return after;
    }

    /** A paragraph's new content would not stay one paragraph. */
    static final class Split extends RuntimeException {
        Split(String paragraphId, String tags) {
            super("the text for paragraph " + paragraphId + " holds a paragraph of its own (" + tags
                    + ") or a block that ends one; save it as the article instead", null, false, false);
        }
    }

    private static Document clean(String html, Safelist safelist) {
        Document doc = new Cleaner(safelist).clean(Jsoup.parseBodyFragment(html));
        doc.outputSettings().prettyPrint(false);
        return doc;
    }

    private static Document parse(String html) {
        Document doc = Jsoup.parseBodyFragment(html);
        doc.outputSettings().prettyPrint(false);
        return doc;
    }

    private static String newId() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder b = new StringBuilder("p");
        for (int i = 0; i < 8; i++) {
            b.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
