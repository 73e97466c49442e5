// hunt/random_graph.h: the `Graph` space of `parity hunt`: small random graphs of several ops that
// change shapes (Conv, pooling, Transpose, Reshape, MatMul, Concat, Resize, normalisations, and the
// elementwise ops between them), NNSmith's idea: bugs that live between kernels (a layout one kernel
// writes and the next misreads, fusions, a shape only an earlier op produces) are out of reach of
// one-op spaces.
//
// A point is (graph: the generator's seed, nodes: how many it draws, keep: how many of the last
// nodes stay, C/H/W: the input's size). Every step draws the same amount from the generator whatever
// the shapes, and an op that does not fit its operand becomes Relu, so shrinking C, H or W keeps the
// graph's structure. Shrinking `nodes` finds the shortest failing prefix (the wrong node is its last,
// the graph's outputs are its leaves, so fusions stay intact); shrinking `keep` cuts the nodes before
// it away (what they fed becomes graph inputs), down to the one to three nodes that still fail.
#pragma once

#include "hunt/op_space.h"

namespace parity::hunt {

OpSpace random_graph_space();

}  // namespace parity::hunt
