;;; broken: type 'boolean' (line 5) is in the 1992 manual but not supported
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (armed        "2.  ARMED" boolean))
