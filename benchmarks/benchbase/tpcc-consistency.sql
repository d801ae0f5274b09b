-- TPC-C consistency conditions (TPC-C 5.11, clause 3.3.2), on BenchBase's table names. Each line is a condition and
-- the number of warehouses or districts that break it; 0 everywhere means consistent.
SELECT 'c1 W_YTD = sum(D_YTD)' AS cond, count(*) AS broken FROM warehouse w
  WHERE w.w_ytd <> (SELECT sum(d_ytd) FROM district d WHERE d.d_w_id = w.w_id)
UNION ALL
SELECT 'c2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)', count(*) FROM district d
  WHERE d.d_next_o_id - 1 <> (SELECT max(o_id) FROM oorder o WHERE o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id)
     OR d.d_next_o_id - 1 <> coalesce((SELECT max(no_o_id) FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id), d.d_next_o_id - 1)
UNION ALL
SELECT 'c3 max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order)', count(*) FROM (
  SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id
  HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)) x
UNION ALL
SELECT 'c4 sum(O_OL_CNT) = count(order_line)', count(*) FROM (
  SELECT o_w_id, o_d_id FROM oorder o GROUP BY o_w_id, o_d_id
  HAVING sum(o_ol_cnt) <> (SELECT count(*) FROM order_line l WHERE l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id)) x
UNION ALL
SELECT 'c5 O_CARRIER_ID IS NULL iff a new_order row', count(*) FROM oorder o
  WHERE (o.o_carrier_id IS NULL) <> EXISTS (SELECT 1 FROM new_order n
      WHERE n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id)
UNION ALL
SELECT 'c6 O_OL_CNT = order lines of the order', count(*) FROM oorder o
  WHERE o.o_ol_cnt <> (SELECT count(*) FROM order_line l
      WHERE l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id)
UNION ALL
SELECT 'c8 W_YTD - loaded = sum(H_AMOUNT) - loaded', count(*) FROM warehouse w
  WHERE w.w_ytd - 300000 <> (SELECT coalesce(sum(h_amount), 0) FROM history h WHERE h.h_w_id = w.w_id)
      - (SELECT 10 * count(*) FROM customer c WHERE c.c_w_id = w.w_id)
UNION ALL
SELECT 'c9 D_YTD - loaded = sum(H_AMOUNT) - loaded', count(*) FROM district d
  WHERE d.d_ytd - 30000 <> (SELECT coalesce(sum(h_amount), 0) FROM history h WHERE h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id)
      - (SELECT 10 * count(*) FROM customer c WHERE c.c_w_id = d.d_w_id AND c.c_d_id = d.d_id);
