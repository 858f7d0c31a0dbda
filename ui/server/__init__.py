"""What the server does around the pages rather than on one: the line added to the head of every page it serves
(page_head.py: where the server is, Plotly's early script, the page-wide CSS) and the libraries imported at its
start and kept out of full garbage collections (heap.py). serve.py at the repository's root uses both."""
