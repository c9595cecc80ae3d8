"""A GRU-free encoder-decoder with dot-product attention, its decoder state a ``@dataclass``
replaced field by field with ``dataclasses.replace``, greedy decoding by ``argmax`` into a
list and embeddings looked up by token id."""

from dataclasses import dataclass, replace

import numpy as np


@dataclass
class DecoderState:
    hidden: np.ndarray
    context: np.ndarray
    step: int = 0


class Seq2Seq:
    def __init__(self, vocab, dim, seed=0):
        rng = np.random.default_rng(seed)
        scale = 1.0 / np.sqrt(dim)
        self.embed = (rng.standard_normal((vocab, dim)) * scale).astype(np.float32)
        self.W_enc = (rng.standard_normal((dim, dim)) * scale).astype(np.float32)
        self.W_dec = (rng.standard_normal((2 * dim, dim)) * scale).astype(np.float32)
        self.W_out = (rng.standard_normal((2 * dim, vocab)) * scale).astype(np.float32)
        self.bos = 0

    def encode(self, tokens):
        states = []
        h = np.zeros(self.W_enc.shape[0], np.float32)
        for tok in tokens:
            h = np.tanh(self.embed[tok] + h @ self.W_enc)
            states.append(h)
        return np.stack(states)

    def attend(self, memory, query):
        scores = memory @ query / np.sqrt(query.shape[-1])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        return weights @ memory, weights

    def decode_step(self, memory, state, token):
        x = np.concatenate([self.embed[token], state.context])
        hidden = np.tanh(x @ self.W_dec + state.hidden)
        context, weights = self.attend(memory, hidden)
        logits = np.concatenate([hidden, context]) @ self.W_out
        return replace(state, hidden=hidden, context=context, step=state.step + 1), logits, weights

    def greedy(self, tokens, max_len=6):
        memory = self.encode(tokens)
        state = DecoderState(memory[-1], np.zeros_like(memory[-1]))
        token, out, attn = self.bos, [], []
        for _ in range(max_len):
            state, logits, weights = self.decode_step(memory, state, token)
            token = int(np.argmax(logits))
            out.append(token)
            attn.append(weights)
        return out, np.array(attn), state
