package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

class MariaDbMultiProcessObjectStoreTest extends AbstractMultiProcessObjectStoreTest {
    private final List<String> created = new ArrayList<>();

    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }

    @Override
    protected EngineConfig freshDatabase() throws SQLException {
        String name = "ts_fresh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute("CREATE DATABASE " + name);
        created.add(name);
        EngineConfig base = config();
        String url = base.jdbcUrl().substring(0, base.jdbcUrl().lastIndexOf('/') + 1) + name;
        return EngineConfig.from(base).jdbcUrl(url).build();
    }

    @AfterAll
    void dropFreshDatabases() throws SQLException {
        for (String name : created) {
            execute("DROP DATABASE IF EXISTS " + name + "");
        }
    }

    private void execute(String sql) throws SQLException {
        EngineConfig base = config();
        try (Connection c = DriverManager.getConnection(base.jdbcUrl(), base.username(), base.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
