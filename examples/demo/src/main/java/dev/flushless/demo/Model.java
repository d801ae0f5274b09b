package dev.flushless.demo;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The order-processing model: customers, products with stock, orders with lines (all versioned, ids from
 * sequences with pooled allocation of 50), and the warehouse's {@code inventory} table, written by plain JDBC
 * upserts. {@link #DDL} creates the schema (the same in both databases).
 */
final class Model {

    private Model() {}

    static final List<String> DDL = List.of(
            "CREATE SEQUENCE customer_seq INCREMENT BY 50",
            "CREATE SEQUENCE product_seq INCREMENT BY 50",
            "CREATE SEQUENCE order_seq INCREMENT BY 50",
            "CREATE SEQUENCE order_line_seq INCREMENT BY 50",
            "CREATE TABLE customer (id bigint PRIMARY KEY, version int NOT NULL, name text NOT NULL,"
                    + " email text NOT NULL UNIQUE, city text NOT NULL, tier text NOT NULL, lifetime_value numeric(14,2) NOT NULL)",
            "CREATE TABLE product (id bigint PRIMARY KEY, version int NOT NULL, sku text NOT NULL UNIQUE,"
                    + " name text NOT NULL, category text NOT NULL, price numeric(12,2) NOT NULL, stock int NOT NULL)",
            "CREATE TABLE purchase_order (id bigint PRIMARY KEY, version int NOT NULL,"
                    + " customer_id bigint NOT NULL REFERENCES customer, status text NOT NULL, total numeric(14,2) NOT NULL)",
            "CREATE INDEX ON purchase_order (customer_id)",
            "CREATE TABLE order_line (id bigint PRIMARY KEY, version int NOT NULL,"
                    + " order_id bigint NOT NULL REFERENCES purchase_order, product_id bigint NOT NULL REFERENCES product,"
                    + " quantity int NOT NULL, unit_price numeric(12,2) NOT NULL)",
            "CREATE INDEX ON order_line (order_id)",
            "CREATE TABLE inventory (sku text PRIMARY KEY, warehouse text NOT NULL, on_hand int NOT NULL,"
                    + " deliveries int NOT NULL, last_delivery int NOT NULL)");

    /** Every table with its primary key, for the data comparison. */
    static final List<String[]> TABLES = List.of(
            new String[] {"customer", "id"},
            new String[] {"product", "id"},
            new String[] {"purchase_order", "id"},
            new String[] {"order_line", "id"},
            new String[] {"inventory", "sku"});

    static final List<Class<?>> ENTITIES = List.of(Customer.class, Product.class, PurchaseOrder.class, OrderLine.class);

    @Entity(name = "Customer")
    @Table(name = "customer")
    public static class Customer {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "customer_seq")
        @SequenceGenerator(name = "customer_seq", sequenceName = "customer_seq", allocationSize = 50)
        Long id;

        @Version
        int version;

        String name;
        String email;
        String city;
        String tier;

        @Column(name = "lifetime_value")
        BigDecimal lifetimeValue;
    }

    @Entity(name = "Product")
    @Table(name = "product")
    public static class Product {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "product_seq")
        @SequenceGenerator(name = "product_seq", sequenceName = "product_seq", allocationSize = 50)
        Long id;

        @Version
        int version;

        String sku;
        String name;
        String category;
        BigDecimal price;
        int stock;
    }

    @Entity(name = "PurchaseOrder")
    @Table(name = "purchase_order")
    public static class PurchaseOrder {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "order_seq")
        @SequenceGenerator(name = "order_seq", sequenceName = "order_seq", allocationSize = 50)
        Long id;

        @Version
        int version;

        @ManyToOne(fetch = FetchType.LAZY, optional = false)
        @JoinColumn(name = "customer_id")
        Customer customer;

        String status;
        BigDecimal total;

        @OneToMany(mappedBy = "order", cascade = CascadeType.ALL, orphanRemoval = true)
        List<OrderLine> lines = new ArrayList<>();
    }

    @Entity(name = "OrderLine")
    @Table(name = "order_line")
    public static class OrderLine {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "order_line_seq")
        @SequenceGenerator(name = "order_line_seq", sequenceName = "order_line_seq", allocationSize = 50)
        Long id;

        @Version
        int version;

        @ManyToOne(fetch = FetchType.LAZY, optional = false)
        @JoinColumn(name = "order_id")
        PurchaseOrder order;

        @ManyToOne(fetch = FetchType.LAZY, optional = false)
        @JoinColumn(name = "product_id")
        Product product;

        int quantity;

        @Column(name = "unit_price")
        BigDecimal unitPrice;
    }
}
