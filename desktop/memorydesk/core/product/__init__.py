"""The product's own rules, reproduced exactly: vocabularies, decay, keyword queries, fusion, intent, grants,
contradictions, links."""
