;;; broken: the options form opened on line 3 is never closed
(setq *template-header-regexp* "^0.  MESSAGE: ID")
(define-muc-configuration-options
  :disable-edit t
  :report-verbose t
