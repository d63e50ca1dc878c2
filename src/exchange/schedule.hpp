// The pairwise order in which a member meets its partners: in round k (1 <= k < p) member m
// sends to (m + k) mod p and receives from (m - k) mod p, so that no member is everyone's first
// partner and every round is a permutation. The p2p, node and pipelined engines use it.
#pragma once

namespace volfft::exchange {

inline int send_partner(int member, int round, int size) { return (member + round) % size; }
inline int receive_partner(int member, int round, int size) { return (member - round + size) % size; }

}  // namespace volfft::exchange
