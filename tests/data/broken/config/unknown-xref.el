;;; broken: xref on line 6 names the undefined slot 'nobody'
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (size         "2.  SIZE" number
                (xref nobody)))
