;;; broken: the string on line 3 has no closing quote
(setq *template-header-regexp* "^0.  MESSAGE: ID")
(setq *message-header-regexp* "^TST3-MUC4-)
(setq *template-tail-regexp* "^[ \t]*$")
