package dev.turnstile.engine.editlock;

import dev.turnstile.api.Paragraph;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Splits an article's HTML into paragraphs at the configured tags (jsoup). Each paragraph keeps
 * its id in a {@code data-pid} attribute: an element that has one keeps it, a new one gets a fresh
 * random id, so inserting or deleting a paragraph never moves a lock onto other text.
 */
final class Paragraphs {
    static final String ID_ATTRIBUTE = "data-pid";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Paragraphs() {
    }

    /** The HTML with an id on every paragraph (existing ids kept; duplicates renewed). */
    static String withIds(String html, List<String> tags) {
        Document doc = Jsoup.parseBodyFragment(html);
        Set<String> seen = new HashSet<>();
        for (Element e : doc.body().select(String.join(",", tags))) {
            String id = e.attr(ID_ATTRIBUTE);
            if (!id.matches("[A-Za-z0-9_-]{1,32}") || !seen.add(id)) {
                do {
                    id = newId();
                } while (!seen.add(id));
                e.attr(ID_ATTRIBUTE, id);
            }
        }
        return doc.body().html();
    }

    static List<Paragraph> of(String html, List<String> tags) {
        List<Paragraph> out = new ArrayList<>();
        for (Element e : Jsoup.parseBodyFragment(html).body().select(String.join(",", tags))) {
            out.add(new Paragraph(e.attr(ID_ATTRIBUTE), e.outerHtml()));
        }
        return out;
    }

    /** The article with one paragraph's content replaced; null if the paragraph is gone. */
    static String replace(String html, String paragraphId, String innerHtml) {
        Document doc = Jsoup.parseBodyFragment(html);
        Element e = doc.body().selectFirst("[" + ID_ATTRIBUTE + "=" + paragraphId + "]");
        if (e == null) {
            return null;
        }
        e.html(innerHtml);
        return doc.body().html();
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
