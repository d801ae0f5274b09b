package dev.flushless.examples.boot;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The shop's transactions; each public method is one transaction (Hibernate batches its writes at commit). */
@Service
public class ShopService {

    private final ProductRepository products;
    private final PurchaseOrderRepository orders;

    public ShopService(ProductRepository products, PurchaseOrderRepository orders) {
        this.products = products;
        this.orders = orders;
    }

    /** Adds {@code count} products {@code prefix0001}, {@code prefix0002}, ...; returns their ids. */
    @Transactional
    public List<Long> addProducts(String prefix, int count, BigDecimal price, int stock) {
        List<Product> added = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            added.add(new Product(
                    String.format("%s%04d", prefix, i),
                    "Product " + prefix + i,
                    price.add(BigDecimal.valueOf(i, 2)),
                    stock));
        }
        return products.saveAll(added).stream().map(Product::getId).toList();
    }

    /** Places an order of the given quantities per SKU, taking them from stock; returns the order's id. */
    @Transactional
    public Long placeOrder(String customer, Map<String, Integer> quantities) {
        PurchaseOrder order = new PurchaseOrder(customer);
        quantities.forEach((sku, quantity) -> {
            Product product =
                    products.findBySku(sku).orElseThrow(() -> new IllegalArgumentException("no product " + sku));
            product.setStock(product.getStock() - quantity);
            order.addLine(product, quantity);
        });
        return orders.save(order).getId();
    }

    /** Cancels an order: its lines are deleted and their quantities go back to stock. */
    @Transactional
    public void cancel(Long orderId) {
        PurchaseOrder order = orders.findById(orderId).orElseThrow();
        for (OrderLine line : order.getLines()) {
            line.getProduct().setStock(line.getProduct().getStock() + line.getQuantity());
        }
        order.getLines().clear();
        order.setStatus("CANCELLED");
    }

    /** Multiplies the price of every product whose SKU starts with {@code prefix}; returns how many. */
    @Transactional
    public int reprice(String prefix, BigDecimal factor) {
        List<Product> matching = products.findBySkuStartingWithOrderBySku(prefix);
        for (Product product : matching) {
            product.setPrice(product.getPrice().multiply(factor).setScale(2, RoundingMode.HALF_UP));
        }
        return matching.size();
    }

    @Transactional
    public void setPrice(String sku, BigDecimal price) {
        products.findBySku(sku).orElseThrow().setPrice(price);
    }
}
