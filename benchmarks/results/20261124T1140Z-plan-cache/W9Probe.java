import java.sql.*;
public class W9Probe {
  public static void main(String[] a) throws Exception {
    String mode = a[0]; int n = Integer.parseInt(a[1]);
    String base = "//127.0.0.1:5434/postgres?user=postgres";
    try (Connection admin = DriverManager.getConnection("jdbc:postgresql:" + base); Statement s = admin.createStatement()) {
      s.execute("DROP TABLE IF EXISTS w9p_child; DROP TABLE IF EXISTS w9p_parent");
      s.execute("CREATE TABLE w9p_parent (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL, children int NOT NULL)");
      s.execute("CREATE TABLE w9p_child (id bigint PRIMARY KEY, parent_id bigint NOT NULL REFERENCES w9p_parent, name text NOT NULL)");
      s.execute("CREATE INDEX ON w9p_child (parent_id)");
      s.execute("INSERT INTO w9p_parent SELECT g, 'seed', 0, 0 FROM generate_series(0, 9999) g; ANALYZE w9p_parent");
      try { s.execute("SELECT pg_stat_statements_reset()"); } catch (SQLException e) { System.out.println("no pg_stat_statements"); }
    }
    String url = mode.equals("bare") ? "jdbc:postgresql:" + base : "jdbc:flushless:postgresql:" + base + "&flushless.mode=" + mode;
    int[] versions = new int[10000];
    long nextParent = 1_000_000, nextChild = 1;
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      long t0 = 0;
      for (int op = 0; op < n; op++) {
        if (op == n / 5) t0 = System.nanoTime();
        long[] pids = new long[5];
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO w9p_parent (id, name, version, children) VALUES (?, ?, 0, 4)")) {
          for (int p = 0; p < 5; p++) { pids[p] = nextParent++; ps.setLong(1, pids[p]); ps.setString(2, "parent " + pids[p]); ps.addBatch(); }
          ps.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO w9p_child (id, parent_id, name) VALUES (?, ?, ?)")) {
          for (int p = 0; p < 5; p++) for (int k = 0; k < 4; k++) { ps.setLong(1, nextChild++); ps.setLong(2, pids[p]); ps.setString(3, "child " + k); ps.addBatch(); }
          ps.executeBatch();
        }
        int first = (op * 5) % 10000;
        try (PreparedStatement ps = c.prepareStatement("UPDATE w9p_parent SET name = ?, version = ? WHERE id = ? AND version = ?")) {
          for (int u = 0; u < 5; u++) { int id = first + u; ps.setString(1, "renamed " + op); ps.setInt(2, versions[id] + 1); ps.setLong(3, id); ps.setInt(4, versions[id]); ps.addBatch(); versions[id]++; }
          int[] counts = ps.executeBatch();
          for (int x : counts) if (x != 1) throw new IllegalStateException("count " + x);
        }
        c.commit();
      }
      long t1 = System.nanoTime();
      System.out.printf("%s: %.3f ms/op over %d ops%n", mode, (t1 - t0) / 1e6 / (n - n / 5), n - n / 5);
      if (!mode.equals("bare")) System.out.println(c.unwrap(dev.flushless.jdbc.FlushlessConnection.class).report());
    }
    if (a.length > 2) try (Connection admin = DriverManager.getConnection("jdbc:postgresql:" + base); Statement s = admin.createStatement();
         ResultSet rs = s.executeQuery("SELECT calls, plans || ' plans, mean plan ' || round(mean_plan_time::numeric,4) || ', exec ' || round(mean_exec_time::numeric, 4), round(total_exec_time::numeric,1), left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements WHERE query ILIKE '%w9p%' OR query ~* '^(commit|begin|savepoint|release)' ORDER BY total_exec_time DESC LIMIT 12")) {
      while (rs.next()) System.out.println(rs.getLong(1) + "  mean " + rs.getString(2) + " ms  total " + rs.getString(3) + "  " + rs.getString(4));
    }
  }
}
