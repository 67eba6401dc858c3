/** The order in which java.util.PriorityQueue hands out partition queues by head timestamp (Kafka's PartitionGroup):
 * random partitions, each line "partitions -> order"; the oracle's oracle/tasks.py must agree. */
import java.util.*;
public class PriorityQueueOrder {
  static List<String> order(long[][] parts) {
    int n = parts.length; int[] heads = new int[n]; long[] head = new long[n];
    PriorityQueue<Integer> pq = new PriorityQueue<>(Math.max(1,n), Comparator.comparingLong(q -> head[q]));
    for (int q = 0; q < n; q++) if (parts[q].length > 0) { head[q] = parts[q][0]; pq.offer(q); }
    List<String> out = new ArrayList<>();
    while (!pq.isEmpty()) { int q = pq.poll(); out.add("(" + q + ", " + heads[q] + ")"); heads[q]++;
      if (heads[q] < parts[q].length) { head[q] = parts[q][heads[q]]; pq.offer(q); } }
    return out;
  }
  public static void main(String[] a) {
    Random r = new Random(Long.parseLong(a[0])); StringBuilder sb = new StringBuilder();
    for (int t = 0; t < Integer.parseInt(a[1]); t++) { int n = 1 + r.nextInt(4); long[][] p = new long[n][];
      for (int q = 0; q < n; q++) { p[q] = new long[r.nextInt(6)]; for (int i = 0; i < p[q].length; i++) p[q][i] = r.nextInt(4); }
      sb.append(Arrays.deepToString(p)).append(" -> ").append(order(p)).append("\n"); }
    System.out.print(sb);
  }
}

