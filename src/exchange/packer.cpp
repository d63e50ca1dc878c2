#include "exchange/packer.hpp"

#include <algorithm>
#include <climits>

namespace volfft::exchange {

PairwiseBlocks pairwise_blocks(const Transfer& t, const std::vector<bool>& skip) {
  const int p = t.size();
  PairwiseBlocks b;
  b.send_offsets.assign(p, 0), b.receive_offsets.assign(p, 0);
  auto wanted = [&](int m) { return skip.empty() || !skip[static_cast<std::size_t>(m)]; };
  for (int k = 1; k < p; ++k) {
    const int to = send_partner(t.member, k, p), from = receive_partner(t.member, k, p);
    if (wanted(to) && t.send[to].size() > 0) {
      b.sends.push_back(to);
      b.send_offsets[to] = b.sent;
      b.sent += t.count(t.send[to]);
    }
    if (wanted(from) && t.recv[from].size() > 0) {
      b.receives.push_back(from);
      b.receive_offsets[from] = b.received;
      b.received += t.count(t.recv[from]);
    }
  }
  return b;
}

}  // namespace volfft::exchange
