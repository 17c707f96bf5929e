"""What an agent gets back from memory: keyword, semantic and hybrid search and the
dispatch preamble, exactly as the product computes them (docs/product-format.md, "The product's rules"), with the
per-file caches that make them fast."""
