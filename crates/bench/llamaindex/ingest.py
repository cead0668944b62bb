#!/usr/bin/env python3
"""LlamaIndex counterpart of `askzico build`, for a side-by-side timing.

Reads every .md/.mdx/.html file of a corpus, splits it into chunks, embeds every
chunk, builds a vector index (SimpleVectorStore) and a BM25 retriever over the
chunks, and persists both under --out. Prints one JSON line: documents, nodes,
and seconds per phase. Only public LlamaIndex APIs are used; no model is
downloaded and nothing goes over the network.

Choices (where in doubt, the cheaper option for LlamaIndex was taken):

* Sources: if DIR/corpus.toml exists, the `root` of each [[library]] in it
  (relative to DIR); otherwise DIR itself. SimpleDirectoryReader, recursive,
  required_exts .md/.mdx/.html. With llama-index-core alone these files are read
  as plain text (no HTML or MDX parsing: tags, front matter and JSX stay in).
* Parsing: MarkdownNodeParser (one node per heading section), then
  SentenceSplitter(chunk_size=7000, chunk_overlap=0) whose `tokenizer` counts
  Unicode scalar values (len of the string), so that 7000 means the same as
  askzico's default `max_chars = 7000` and no tiktoken pass is paid. Overlap 0
  because askzico's chunks do not overlap (it is also cheaper). HTML files go
  through the same two parsers; having no Markdown headings, they reach the
  SentenceSplitter whole, i.e. are split as text. The IngestionPipeline runs
  with its cache disabled (a cold build has nothing to reuse).
  Note: MarkdownNodeParser does not pack small sections together the way
  askzico does, so LlamaIndex ends with more, smaller nodes.
  `--no-markdown-parser` (SentenceSplitter alone) is there as a sensitivity check.
* Embedding: MockEmbedding(embed_dim=256): a constant vector, the cheapest
  embedding there is (askzico computes a 256-dim hashing vector per chunk).
* BM25: BM25Retriever.from_defaults(nodes=..., skip_stemming=True): bm25s's
  default regex tokenizer and English stop words, no stemming (the default
  English stemmer does nothing useful for Arabic text, so it is skipped).
  askzico normalises Arabic before indexing; LlamaIndex here does not.
* Parallelism: SimpleDirectoryReader.load_data(num_workers=...) and
  IngestionPipeline.run(num_workers=...) are the two plain knobs LlamaIndex
  offers. Both were tried with 2 workers on a 2-core machine: both were slower
  than sequential (spawned workers re-import llama_index and the documents and
  nodes are pickled both ways), so the default is --workers 1 (sequential).
"""

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tomllib  # noqa: E402

from llama_index.core import (  # noqa: E402
    Settings,
    SimpleDirectoryReader,
    StorageContext,
    VectorStoreIndex,
)
from llama_index.core.embeddings import MockEmbedding  # noqa: E402
from llama_index.core.ingestion import IngestionPipeline  # noqa: E402
from llama_index.core.node_parser import (  # noqa: E402
    MarkdownNodeParser,
    SentenceSplitter,
)
from llama_index.core.vector_stores import SimpleVectorStore  # noqa: E402
from llama_index.retrievers.bm25 import BM25Retriever  # noqa: E402

EXTS = [".md", ".mdx", ".html"]
EMBED_DIM = 256
MAX_CHARS = 7000


def count_chars(text: str) -> str:
    """SentenceSplitter's `tokenizer`: it only takes len() of the result, so
    returning the string itself measures in Unicode scalar values."""
    return text


def source_roots(sources: str) -> list[str]:
    toml_path = os.path.join(sources, "corpus.toml")
    if os.path.isfile(toml_path):
        with open(toml_path, "rb") as f:
            cfg = tomllib.load(f)
        roots = [lib["root"] for lib in cfg.get("library", []) if "root" in lib]
        if roots:
            return [os.path.join(sources, r) for r in roots]
    return [sources]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", required=True, help="corpus folder (with corpus.toml, or plain)")
    ap.add_argument("--out", required=True, help="output folder (vector/ and bm25/ are written in it)")
    ap.add_argument("--workers", type=int, default=1,
                    help="num_workers for load_data and IngestionPipeline.run (1 = sequential)")
    ap.add_argument("--no-markdown-parser", action="store_true",
                    help="SentenceSplitter alone (no MarkdownNodeParser)")
    args = ap.parse_args()
    workers = args.workers if args.workers > 1 else None

    secs: dict[str, float] = {"import": time.perf_counter() - T0}

    def phase(name: str, t: float) -> float:
        now = time.perf_counter()
        secs[name] = round(now - t, 3)
        return now

    embed_model = MockEmbedding(embed_dim=EMBED_DIM)
    Settings.embed_model = embed_model  # never resolve the default (OpenAI) model

    t = time.perf_counter()
    documents = []
    for root in source_roots(args.sources):
        reader = SimpleDirectoryReader(input_dir=root, recursive=True, required_exts=EXTS)
        documents.extend(reader.load_data(num_workers=workers))
    t = phase("load", t)

    splitter = SentenceSplitter(
        chunk_size=MAX_CHARS, chunk_overlap=0, tokenizer=count_chars
    )
    transformations = [splitter] if args.no_markdown_parser else [MarkdownNodeParser(), splitter]
    pipeline = IngestionPipeline(transformations=transformations, disable_cache=True)
    nodes = pipeline.run(documents=documents, num_workers=workers)
    t = phase("parse", t)

    nodes = embed_model(nodes)  # sets node.embedding on every node
    t = phase("embed", t)

    storage_context = StorageContext.from_defaults(vector_store=SimpleVectorStore())
    index = VectorStoreIndex(nodes, storage_context=storage_context, embed_model=embed_model)
    t = phase("vector_index", t)

    bm25 = BM25Retriever.from_defaults(nodes=nodes, skip_stemming=True)
    t = phase("bm25", t)

    vector_dir = os.path.join(args.out, "vector")
    bm25_dir = os.path.join(args.out, "bm25")
    os.makedirs(vector_dir, exist_ok=True)
    os.makedirs(bm25_dir, exist_ok=True)
    index.storage_context.persist(persist_dir=vector_dir)
    t = phase("persist_vector", t)
    bm25.persist(bm25_dir, show_progress=False)  # no tqdm bar
    t = phase("persist_bm25", t)

    secs["import"] = round(secs["import"], 3)
    secs["total"] = round(time.perf_counter() - T0, 3)
    print(json.dumps({
        "documents": len(documents),
        "nodes": len(nodes),
        "workers": workers or 1,
        "markdown_parser": not args.no_markdown_parser,
        "seconds": secs,
    }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
