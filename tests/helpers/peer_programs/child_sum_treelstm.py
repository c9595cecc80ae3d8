"""A child-sum Tree-LSTM (Tai, Socher and Manning, 2015) over dependency trees, written as
its paper reads: every node holds a word and a list of any number of children, a leaf's
list is empty, the children's hidden states are summed and each child gets its own forget
gate. A sentence is a ``Sentence`` wrapper (root and label)."""

import numpy as np


class DepNode:
    def __init__(self, word, children=None):
        self.word = word
        self.children = children if children is not None else []

    def add_child(self, child):
        self.children.append(child)


class Sentence:
    def __init__(self, root, label):
        self.root = root
        self.label = label


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class ChildSumTreeLSTM:
    def __init__(self, vocab_size, in_dim, mem_dim, n_classes, seed=0):
        rng = np.random.default_rng(seed)
        scale = 1.0 / np.sqrt(mem_dim)
        self.mem_dim = mem_dim
        self.emb = rng.normal(0, 0.5, (vocab_size, in_dim)).astype(np.float32)
        self.W_iou = rng.uniform(-scale, scale, (3 * mem_dim, in_dim)).astype(np.float32)
        self.U_iou = rng.uniform(-scale, scale, (3 * mem_dim, mem_dim)).astype(np.float32)
        self.b_iou = np.zeros(3 * mem_dim, np.float32)
        self.W_f = rng.uniform(-scale, scale, (mem_dim, in_dim)).astype(np.float32)
        self.U_f = rng.uniform(-scale, scale, (mem_dim, mem_dim)).astype(np.float32)
        self.b_f = np.ones(mem_dim, np.float32)
        self.W_out = rng.uniform(-scale, scale, (n_classes, mem_dim)).astype(np.float32)

    def node_forward(self, node):
        """(h, c) of ``node`` from its children's, computed recursively."""
        x = self.emb[node.word]
        h_sum = np.zeros(self.mem_dim, np.float32)
        fc_sum = np.zeros(self.mem_dim, np.float32)
        wf_x = self.W_f @ x + self.b_f
        for child in node.children:
            child_h, child_c = self.node_forward(child)
            h_sum = h_sum + child_h
            f = sigmoid(wf_x + self.U_f @ child_h)
            fc_sum = fc_sum + f * child_c
        iou = self.W_iou @ x + self.U_iou @ h_sum + self.b_iou
        i, o, u = np.split(iou, 3)
        c = sigmoid(i) * np.tanh(u) + fc_sum
        h = sigmoid(o) * np.tanh(c)
        return h, c

    def predict(self, sentence):
        h, _ = self.node_forward(sentence.root)
        scores = self.W_out @ h
        e = np.exp(scores - scores.max())
        return e / e.sum()

    def loss(self, sentences):
        total = 0.0
        for s in sentences:
            total = total - np.log(self.predict(s)[s.label])
        return total / len(sentences)


def is_leaf(node):
    return node.children == []


def random_sentence(rng, n_words, vocab_size, n_classes, max_children=5):
    """A dependency tree of ``n_words`` nodes: each new word hangs under a random earlier
    one that still has room (so nodes have 0 to ``max_children`` children)."""
    nodes = [DepNode(int(rng.integers(vocab_size)))]
    for _ in range(n_words - 1):
        open_nodes = [n for n in nodes if len(n.children) < max_children]
        parent = open_nodes[int(rng.integers(len(open_nodes)))]
        child = DepNode(int(rng.integers(vocab_size)))
        parent.add_child(child)
        nodes.append(child)
    return Sentence(nodes[0], int(rng.integers(n_classes)))
