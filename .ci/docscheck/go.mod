module docscheck

go 1.26
