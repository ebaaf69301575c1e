"""Writes a tiny llama model with random weights as GGUF, for tests against a real model server.

python tiny_model.py OUT.gguf [SEED]

The model: llama architecture, 64 wide, 2 layers, 4 heads; a SentencePiece vocabulary with
byte tokens (so a character's UTF-8 bytes can come one token at a time) and the chatml
markers; a chatml chat template. Its words are nonsense: tests assert the protocol, not
the prose. The end-of-text tokens get zero output weights, so that random answers run to
their max_tokens instead of stopping at a random point. So do the byte tokens 0x80-0xFF: a random
one is a stray piece of a UTF-8 character, and llama-cpp-python holds every later chunk back
until the answer ends (it waits for the character to be whole), so nothing would stream. Other
characters beyond ASCII come as whole pieces (é, ü, 中, 🏃), whose bytes the transport may still
split between reads.
"""
import sys

import numpy as np
import gguf

WIDTH, LAYERS, HEADS, FEED_FORWARD, CONTEXT = 64, 2, 4, 128, 4096
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def vocabulary():
    T = gguf.TokenType
    tokens = [("<unk>", 0.0, T.UNKNOWN), ("<s>", 0.0, T.CONTROL), ("</s>", 0.0, T.CONTROL)]
    tokens += [("<|im_start|>", 0.0, T.CONTROL), ("<|im_end|>", 0.0, T.CONTROL)]
    tokens += [(f"<0x{byte:02X}>", 0.0, T.BYTE) for byte in range(256)]
    pieces = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?'\"()[]{}<>-_=+*/\\|@#$%&~`^\n")
    pieces += ["\u2581" + word for word in "the a to of and in is it you that run km week goal workout on for".split()]
    pieces += ["\u2581", "\u00e9", "\u00fc", "\u4e2d", "\U0001f3c3"]
    seen = {text for text, _, _ in tokens}
    for index, piece in enumerate(pieces):
        if piece not in seen:
            seen.add(piece)
            tokens.append((piece, -1.0 - index / 1000 + len(piece), T.NORMAL))
    return tokens


def write(path, seed=7):
    rng = np.random.default_rng(seed)
    tokens = vocabulary()
    size = len(tokens)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("chatbotkit-tiny")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list([text for text, _, _ in tokens])
    writer.add_token_scores([score for _, score, _ in tokens])
    writer.add_token_types([kind for _, _, kind in tokens])
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(4)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)
    writer.add_chat_template(CHATML)

    def weights(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    output = weights(size, WIDTH, scale=1.0)
    output[[1, 2, 3, 4]] = 0.0
    first_byte = 5  # after the five control tokens, the 256 byte tokens in order
    output[first_byte + 0x80:first_byte + 0x100] = 0.0
    writer.add_tensor("token_embd.weight", weights(size, WIDTH, scale=1.0))
    writer.add_tensor("output_norm.weight", np.ones(WIDTH, dtype=np.float32))
    writer.add_tensor("output.weight", output)
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"{block}.{name}.weight", weights(WIDTH, WIDTH))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{block}.ffn_up.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{block}.ffn_down.weight", weights(WIDTH, FEED_FORWARD))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    write(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7)
