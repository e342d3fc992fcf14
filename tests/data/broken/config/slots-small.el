;;; a small valid slot file used by the broken configuration examples
(setq *message-header-regexp* "^SMALL-")
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (colour       "2.  COLOUR" element (set "RED" "BLUE")))
