package dev.flushless.demo;

import dev.flushless.demo.Model.Customer;
import dev.flushless.demo.Model.OrderLine;
import dev.flushless.demo.Model.Product;
import dev.flushless.demo.Model.PurchaseOrder;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * The order-processing workload, through Hibernate 6 (batch size 50, ordered inserts and updates, batched
 * versioned data) and plain JDBC batches on the same pool. Every value comes from a seeded {@link Random},
 * so two runs into two empty databases must leave identical rows.
 */
final class Workload {

    /** How much work one run does. */
    record Sizes(
            int customers,
            int products,
            int orders,
            int ordersPerTransaction,
            int priceRounds,
            int deliveries,
            int skusPerDelivery) {

        /** The sizes at {@code --scale factor}: at 1, 250 customers, 500 products, 750 orders, 125 SKUs per delivery. */
        static Sizes scaled(double factor) {
            return new Sizes(n(250, factor), n(500, factor), n(750, factor), 100, 3, 4, n(125, factor));
        }

        private static int n(int base, double factor) {
            return Math.max(10, (int) Math.round(base * factor));
        }
    }

    /** Receives one line per finished phase. */
    interface Progress {
        void phase(String name, String detail, long nanos);
    }

    private static final String[] CITIES = {"Lisbon", "Oslo", "Austin", "Osaka", "Nairobi", "Lyon", "Quito", "Perth"};
    private static final String[] CATEGORIES = {
        "books", "garden", "kitchen", "toys", "tools", "sports", "music", "office"
    };

    static final String UPSERT_INVENTORY = "INSERT INTO inventory (sku, warehouse, on_hand, deliveries, last_delivery)"
            + " VALUES (?, ?, ?, 1, ?) ON CONFLICT (sku) DO UPDATE SET on_hand = inventory.on_hand + EXCLUDED.on_hand,"
            + " deliveries = inventory.deliveries + 1, last_delivery = EXCLUDED.last_delivery";
    static final String RESTOCK_PRODUCT = "UPDATE product SET stock = stock + ?, version = version + 1 WHERE sku = ?";

    private final DataSource dataSource;
    private final Sizes sizes;
    private final Progress progress;
    private final Random random = new Random(20240607L);
    /** Transactions committed by the workload (each ends in exactly one COMMIT). */
    private long commits;

    Workload(DataSource dataSource, Sizes sizes, Progress progress) {
        this.dataSource = dataSource;
        this.sizes = sizes;
        this.progress = progress;
    }

    static SessionFactory sessionFactory(DataSource dataSource) {
        Configuration configuration = new Configuration();
        Model.ENTITIES.forEach(configuration::addAnnotatedClass);
        configuration.getProperties().put("hibernate.connection.datasource", dataSource);
        configuration
                .setProperty("hibernate.connection.provider_disables_autocommit", "true")
                .setProperty("hibernate.jdbc.batch_size", "50")
                .setProperty("hibernate.order_inserts", "true")
                .setProperty("hibernate.order_updates", "true")
                .setProperty("hibernate.jdbc.batch_versioned_data", "true")
                .setProperty("hibernate.hbm2ddl.auto", "none")
                .setProperty("hibernate.show_sql", "false");
        return configuration.buildSessionFactory();
    }

    /** Runs every phase; the caller times the whole. */
    void run(SessionFactory factory) throws SQLException {
        timed("customers", () -> customers(factory));
        timed("products", () -> products(factory));
        timed("orders", () -> orders(factory));
        timed("price updates", () -> priceUpdates(factory));
        timed("stock deliveries", this::deliveries);
        timed("cancellations", () -> cancellations(factory));
        timed("loyalty tiers", () -> loyalty(factory));
        timed("shipping", () -> shipping(factory));
    }

    private interface Phase {
        String run() throws SQLException;
    }

    private void timed(String name, Phase phase) throws SQLException {
        long start = System.nanoTime();
        String detail = phase.run();
        progress.phase(name, detail, System.nanoTime() - start);
    }

    private String customers(SessionFactory factory) {
        int chunk = 500;
        for (int from = 0; from < sizes.customers(); from += chunk) {
            int start = from;
            inTransaction(factory, s -> {
                for (int i = start; i < Math.min(start + chunk, sizes.customers()); i++) {
                    Customer c = new Customer();
                    c.name = "Customer " + i;
                    c.email = "customer" + i + "@example.com";
                    c.city = CITIES[random.nextInt(CITIES.length)];
                    c.tier = "bronze";
                    c.lifetimeValue = BigDecimal.ZERO.setScale(2);
                    s.persist(c);
                }
            });
        }
        return sizes.customers() + " inserted";
    }

    private String products(SessionFactory factory) {
        int chunk = 500;
        for (int from = 0; from < sizes.products(); from += chunk) {
            int start = from;
            inTransaction(factory, s -> {
                for (int i = start; i < Math.min(start + chunk, sizes.products()); i++) {
                    Product p = new Product();
                    p.sku = sku(i);
                    p.name = CATEGORIES[i % CATEGORIES.length] + " item " + i;
                    p.category = CATEGORIES[i % CATEGORIES.length];
                    p.price = BigDecimal.valueOf(100 + random.nextInt(19_900), 2);
                    p.stock = 20 + random.nextInt(200);
                    s.persist(p);
                }
            });
        }
        return sizes.products() + " inserted";
    }

    private String orders(SessionFactory factory) {
        List<Long> customerIds = fromTransaction(
                factory,
                s -> s.createQuery("select c.id from Customer c order by c.id", Long.class)
                        .getResultList());
        int[] counts = new int[2];
        for (int from = 0; from < sizes.orders(); from += sizes.ordersPerTransaction()) {
            int n = Math.min(sizes.ordersPerTransaction(), sizes.orders() - from);
            inTransaction(factory, s -> {
                List<Product> products = s.createQuery("from Product p order by p.id", Product.class)
                        .getResultList();
                for (int i = 0; i < n; i++) {
                    PurchaseOrder order = new PurchaseOrder();
                    order.customer =
                            s.getReference(Customer.class, customerIds.get(random.nextInt(customerIds.size())));
                    order.status = "new";
                    BigDecimal total = BigDecimal.ZERO;
                    int lines = 1 + random.nextInt(5);
                    for (int l = 0; l < lines; l++) {
                        Product product = products.get(random.nextInt(products.size()));
                        int quantity = 1 + random.nextInt(4);
                        if (product.stock < quantity) {
                            continue; // out of stock: the line is dropped
                        }
                        product.stock -= quantity;
                        OrderLine line = new OrderLine();
                        line.order = order;
                        line.product = product;
                        line.quantity = quantity;
                        line.unitPrice = product.price;
                        order.lines.add(line);
                        total = total.add(product.price.multiply(BigDecimal.valueOf(quantity)));
                    }
                    if (order.lines.isEmpty()) {
                        continue;
                    }
                    order.total = total;
                    s.persist(order);
                    counts[0]++;
                    counts[1] += order.lines.size();
                }
            });
        }
        return counts[0] + " orders with " + counts[1] + " lines, stock taken";
    }

    private String priceUpdates(SessionFactory factory) {
        int changed = 0;
        for (int round = 0; round < sizes.priceRounds(); round++) {
            List<String> categories = List.of(
                    CATEGORIES[(2 * round) % CATEGORIES.length],
                    CATEGORIES[(2 * round + 1) % CATEGORIES.length],
                    CATEGORIES[(2 * round + 4) % CATEGORIES.length],
                    CATEGORIES[(2 * round + 5) % CATEGORIES.length]);
            BigDecimal factor = BigDecimal.ONE.add(BigDecimal.valueOf(3 + round * 2L, 2)); // +3 %, +5 %, ...
            changed += fromTransaction(factory, s -> {
                List<Product> products = s.createQuery(
                                "from Product p where p.category in :c order by p.id", Product.class)
                        .setParameter("c", categories)
                        .getResultList();
                for (Product p : products) {
                    p.price = p.price.multiply(factor).setScale(2, RoundingMode.HALF_EVEN);
                }
                return products.size();
            });
        }
        return changed + " prices changed in " + sizes.priceRounds() + " rounds";
    }

    /** The warehouse feed, plain JDBC on the same pool: inventory upserts and stock increments by SKU. */
    private String deliveries() throws SQLException {
        int rows = 0;
        for (int d = 1; d <= sizes.deliveries(); d++) {
            try (Connection c = dataSource.getConnection();
                    PreparedStatement upsert = c.prepareStatement(UPSERT_INVENTORY);
                    PreparedStatement restock = c.prepareStatement(RESTOCK_PRODUCT)) {
                c.setAutoCommit(false);
                for (int k = 0; k < sizes.skusPerDelivery(); k++) {
                    int product = random.nextInt(sizes.products());
                    int quantity = 5 + random.nextInt(50);
                    upsert.setString(1, sku(product));
                    upsert.setString(2, "WH-" + (product % 3 + 1));
                    upsert.setInt(3, quantity);
                    upsert.setInt(4, d);
                    upsert.addBatch();
                    restock.setInt(1, quantity);
                    restock.setString(2, sku(product));
                    restock.addBatch();
                    rows++;
                    if ((k + 1) % 250 == 0) {
                        upsert.executeBatch();
                        restock.executeBatch();
                    }
                }
                upsert.executeBatch();
                restock.executeBatch();
                c.commit();
                commits++;
            }
        }
        return rows + " SKU deliveries in " + sizes.deliveries() + " rounds (upserts + restocks)";
    }

    private String cancellations(SessionFactory factory) {
        List<Long> ids = fromTransaction(
                factory,
                s -> s.createQuery("select o.id from PurchaseOrder o where mod(o.id, 10) = 7 order by o.id", Long.class)
                        .getResultList());
        int[] lines = new int[1];
        for (int from = 0; from < ids.size(); from += 100) {
            List<Long> chunk = ids.subList(from, Math.min(from + 100, ids.size()));
            inTransaction(factory, s -> {
                List<PurchaseOrder> orders = s.createQuery(
                                "select distinct o from PurchaseOrder o join fetch o.lines l"
                                        + " join fetch l.product where o.id in :ids order by o.id",
                                PurchaseOrder.class)
                        .setParameter("ids", chunk)
                        .getResultList();
                for (PurchaseOrder order : orders) {
                    for (OrderLine line : order.lines) {
                        line.product.stock += line.quantity; // back on the shelf
                        lines[0]++;
                    }
                    s.remove(order);
                }
            });
        }
        return ids.size() + " orders deleted with " + lines[0] + " lines, stock returned";
    }

    private String loyalty(SessionFactory factory) {
        return fromTransaction(factory, s -> {
            Map<Long, BigDecimal> spent = new HashMap<>();
            for (Object[] row : s.createQuery(
                            "select o.customer.id, sum(o.total) from PurchaseOrder o group by o.customer.id",
                            Object[].class)
                    .getResultList()) {
                spent.put((Long) row[0], (BigDecimal) row[1]);
            }
            int changed = 0;
            for (Customer c : s.createQuery("from Customer c order by c.id", Customer.class)
                    .getResultList()) {
                BigDecimal value = spent.getOrDefault(c.id, BigDecimal.ZERO).setScale(2, RoundingMode.HALF_EVEN);
                String tier = value.compareTo(BigDecimal.valueOf(1_500)) >= 0
                        ? "gold"
                        : value.compareTo(BigDecimal.valueOf(600)) >= 0 ? "silver" : "bronze";
                if (value.compareTo(c.lifetimeValue) != 0 || !tier.equals(c.tier)) {
                    c.lifetimeValue = value;
                    c.tier = tier;
                    changed++;
                }
            }
            return changed + " customers re-tiered";
        });
    }

    private String shipping(SessionFactory factory) {
        List<Long> ids = fromTransaction(
                factory,
                s -> s.createQuery(
                                "select o.id from PurchaseOrder o where o.status = 'new' and mod(o.id, 3) <> 0 order by o.id",
                                Long.class)
                        .getResultList());
        for (int from = 0; from < ids.size(); from += 500) {
            List<Long> chunk = new ArrayList<>(ids.subList(from, Math.min(from + 500, ids.size())));
            inTransaction(factory, s -> {
                for (PurchaseOrder o : s.createQuery(
                                "from PurchaseOrder o where o.id in :ids order by o.id", PurchaseOrder.class)
                        .setParameter("ids", chunk)
                        .getResultList()) {
                    o.status = "shipped";
                }
            });
        }
        return ids.size() + " orders shipped";
    }

    long commits() {
        return commits;
    }

    static String sku(int i) {
        return String.format("SKU-%05d", i);
    }

    private void inTransaction(SessionFactory factory, Consumer<Session> work) {
        factory.inTransaction(work);
        commits++;
    }

    private <T> T fromTransaction(SessionFactory factory, java.util.function.Function<Session, T> work) {
        T result = factory.fromTransaction(work);
        commits++;
        return result;
    }
}
