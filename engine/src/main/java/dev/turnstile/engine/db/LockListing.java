package dev.turnstile.engine.db;

import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import org.hibernate.StatelessSession;
import org.hibernate.query.NativeQuery;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Pages of held locks from one table by a {@link LockQuery}, for every kind of lock: the database
 * filters, counts, orders and cuts the page, so a console page costs about the same with a
 * thousand locks as with a hundred thousand. Each kind names its columns — holder, what is locked
 * (and an id column a query may name the object by), token, time — and says which rows are held.
 */
public record LockListing(String table, String holder, String what, String id, String token, String time) {

    /** Which of the table's rows are locks to list: a condition on its columns, with its parameters. */
    public record Held(String condition, Map<String, Object> parameters) {
        /** Every row. */
        public static final Held ALL = new Held("1 = 1", Map.of());
    }

    /**
     * The page {@code query} asks for of the {@code held} rows, as {@code rows} (an entity of the
     * table), and how many there are in all; {@code tokenValue} reads a token as the column holds
     * it (null: no lock can have it).
     */
    public <R> LockPage<R> page(StatelessSession session, LockQuery query, Class<R> rows, Held held,
                                Function<String, Object> tokenValue) {
        StringBuilder where = new StringBuilder(" WHERE ").append(held.condition());
        Map<String, Object> parameters = new HashMap<>(held.parameters());
        if (query.holder() != null) {
            where.append(" AND ").append(holder).append(" = :holder");
            parameters.put("holder", query.holder());
        }
        if (query.lockToken() != null) {
            Object value = tokenValue.apply(query.lockToken());
            if (value == null) {
                return new LockPage<>(List.of(), 0, query.offset());
            }
            where.append(" AND ").append(token).append(" = :token");
            parameters.put("token", value);
        }
        if (query.contains() != null) {
            String like = what + " LIKE :contains ESCAPE '" + Sql.LIKE_ESCAPE + "'";
            UUID asId = id == null ? null : uuidOrNull(query.contains());
            where.append(" AND ").append(asId == null ? like : "(" + like + " OR " + id + " = :containsId)");
            parameters.put("contains", "%" + Sql.likeLiteral(query.contains()) + "%");
            if (asId != null) {
                parameters.put("containsId", asId);
            }
        }
        long total = bind(session.createNativeQuery("SELECT COUNT(*) FROM " + table + where, Long.class), parameters).getSingleResult();
        if (total <= query.offset()) {
            return new LockPage<>(List.of(), total, query.offset());
        }
        var page = bind(session.createNativeQuery("SELECT * FROM " + table + where + " ORDER BY " + orderBy(query.order()), rows), parameters);
        return new LockPage<>(page.setFirstResult(query.offset()).setMaxResults(query.limit()).getResultList(), total, query.offset());
    }

    private static <T> NativeQuery<T> bind(NativeQuery<T> query, Map<String, Object> parameters) {
        parameters.forEach((name, value) -> {
            if (value instanceof java.util.Collection<?> values) {
                query.setParameterList(name, values);
            } else {
                query.setParameter(name, value);
            }
        });
        return query;
    }

    /** Each order ends with the token, so that pages never overlap or skip rows of equal times. */
    private String orderBy(LockQuery.Order order) {
        return switch (order) {
            case OLDEST -> time + ", " + token;
            case NEWEST -> time + " DESC, " + token + " DESC";
            case HOLDER -> holder + ", " + time + ", " + token;
            case WHAT -> what + ", " + time + ", " + token;
        };
    }

    /** {@code text} as a UUID, or null: a token or an id column holds UUIDs, and no other text matches them. */
    public static UUID uuidOrNull(String text) {
        try {
            return text.length() == 36 ? UUID.fromString(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
