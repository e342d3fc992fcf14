;;; broken: the restriction names the slot 'weapon' (line 13), which is not defined
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (colour       "2.  COLOUR" element (set ("RED" "DARK RED") "BLUE"))
  (owner        "3.  OWNER" string)
  (size         "4.  SIZE" number (xref owner)))

(define-muc-configuration-options
  :display-type 'matched-only
  :restrict-map-slots '(and colour
                            (or owner
                                weapon))
  :scored-slots :all)
