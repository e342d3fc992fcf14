;;; only a comment

   
