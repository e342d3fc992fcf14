;;; broken: slot 'colour' is defined twice (second time on line 6)
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (colour       "2.  COLOUR" element (set "RED" "BLUE"))
  (colour       "3.  COLOUR AGAIN" string))
