package dev.flushless.examples.boot;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The shop's workload, the same for every configuration: products added in one transaction, 30 orders (one
 * transaction each: a product read, stock updates, the order and its lines inserted), a reprice of 120 products,
 * cancellations (lines deleted), an optimistic-lock failure (a batch of versioned updates, one of them stale), and
 * a transaction that fails on a CHECK constraint. Returns what the application observed: ids, counts, exceptions.
 */
final class Workload {

    private Workload() {}

    static List<String> run(ApplicationContext context) {
        ShopService shop = context.getBean(ShopService.class);
        ProductRepository products = context.getBean(ProductRepository.class);
        PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
        List<String> observed = new ArrayList<>();

        observed.add("products " + shop.addProducts("P-", 120, new BigDecimal("10.00"), 1000));
        List<Long> orders = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Map<String, Integer> quantities = new LinkedHashMap<>();
            quantities.put(String.format("P-%04d", 1 + i % 120), 1 + i % 3);
            quantities.put(String.format("P-%04d", 1 + (i * 7 + 3) % 120), 2);
            quantities.put("SEED-" + (1 + i % 3), 1);
            orders.add(shop.placeOrder("customer-" + i % 7, quantities));
        }
        observed.add("orders " + orders);
        observed.add("repriced " + shop.reprice("P-", new BigDecimal("1.10")));
        for (int i = 0; i < orders.size(); i += 7) {
            shop.cancel(orders.get(i));
        }

        // Optimistic locking: this transaction reads ten products; another changes one of them and commits; this
        // one's batch of versioned UPDATEs then finds that row's version gone (an update count of 0).
        TransactionTemplate outer = new TransactionTemplate(transactions);
        TransactionTemplate other = new TransactionTemplate(transactions);
        other.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        try {
            outer.executeWithoutResult(status -> {
                List<Product> read = products.findBySkuStartingWithOrderBySku("P-001");
                other.executeWithoutResult(s -> shop.setPrice("P-0015", new BigDecimal("99.99")));
                read.forEach(p -> p.setPrice(p.getPrice().add(BigDecimal.ONE)));
            });
            observed.add("optimistic lock: no failure");
        } catch (RuntimeException e) {
            observed.add("optimistic lock: " + e.getClass().getName() + ": " + e.getMessage());
        }

        // A CHECK constraint violation (negative stock): nothing of the transaction is committed.
        try {
            shop.placeOrder("customer-x", Map.of("SEED-1", 5, "SEED-3", 1000));
            observed.add("constraint: no failure");
        } catch (RuntimeException e) {
            observed.add("constraint: " + sqlState(e));
            observed.add("constraint exception: " + e.getClass().getName());
        }
        return observed;
    }

    /** The SQLState of the innermost SQLException among {@code e}'s causes. */
    static String sqlState(Throwable e) {
        String state = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                state = sql.getSQLState();
            }
        }
        return state;
    }
}
